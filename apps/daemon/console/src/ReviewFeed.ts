/**
 * The review queue's changes as they happen (`GET /api/review/stream`): one EventSource for the whole
 * console, shared by the navigation's pending count and the Review page. `added` is a row that entered
 * the queue (an item a rule sent, an appeal filed), `decided` one that left it (by any moderator, on
 * any runner). The stream opens with the first listener and closes with the last.
 */
import type { ReviewItem } from "./model.ts"

/** A change of the queue, or the stream's state. */
export type FeedEvent =
  | { readonly kind: "added" | "decided"; readonly item: ReviewItem }
  | { readonly kind: "state"; readonly state: "connecting" | "live" | "reconnecting" }

type Listener = (event: FeedEvent) => void

const listeners = new Set<Listener>()
let stream: EventSource | undefined
let state: "connecting" | "live" | "reconnecting" = "connecting"

const emit = (event: FeedEvent) => {
  for (const l of listeners) l(event)
}

const setState = (next: typeof state) => {
  state = next
  emit({ kind: "state", state })
}

const open = () => {
  stream = new EventSource("/api/review/stream")
  setState("connecting")
  stream.onopen = () => setState("live")
  stream.onerror = () => setState("reconnecting")
  for (const kind of ["added", "decided"] as const)
    stream.addEventListener(kind, (e) => emit({ kind, item: JSON.parse((e as MessageEvent<string>).data) }))
}

/** Calls `listener` with every change (and the stream's state, now and on each change); returns the unsubscribe. */
export const subscribe = (listener: Listener): (() => void) => {
  listeners.add(listener)
  if (stream === undefined) open()
  else listener({ kind: "state", state })
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0) {
      stream?.close()
      stream = undefined
    }
  }
}
