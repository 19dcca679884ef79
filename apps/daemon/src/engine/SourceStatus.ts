/**
 * What each source is doing right now, for `/readyz`, `/metrics` and the logs: running, paused by the
 * API (with the reason), or waiting on its upstream.
 */
import { Context, Effect, Layer, Metric, Ref } from "effect"
import * as Metrics from "./Metrics.ts"

/** The state of one source. */
export interface State {
  readonly state: "starting" | "running" | "paused" | "upstream-error"
  readonly reason?: string
  readonly since: number
  /** When the source last committed a checkpoint. */
  readonly lastCommit?: number
  /** When the source last reported an upstream error (a feed down, a rejected payload). */
  readonly lastErrorAt?: number
}

/** How long an upstream error keeps a source "not ready" when nothing newer says otherwise. */
export const UPSTREAM_ERROR_WINDOW_MILLIS = 120_000

/** Whether a source state should fail readiness now. */
export const isUnready = (state: State, now: number): boolean =>
  state.state === "paused" ||
  (state.state === "upstream-error" && now - (state.lastErrorAt ?? state.since) < UPSTREAM_ERROR_WINDOW_MILLIS)

const make = Effect.gen(function* () {
  const states = yield* Ref.make(new Map<string, State>())
  const set = (source: string, next: Omit<State, "since" | "lastCommit">) =>
    Effect.gen(function* () {
      yield* Ref.update(states, (m) => {
        const prev = m.get(source)
        const now = Date.now()
        const lastErrorAt = next.state === "upstream-error" ? now : prev?.lastErrorAt
        if (prev?.state === next.state && prev.reason === next.reason && lastErrorAt === prev.lastErrorAt) return m
        const copy = new Map(m)
        copy.set(source, {
          ...next,
          since: prev?.state === next.state ? prev.since : now,
          ...(prev?.lastCommit === undefined ? {} : { lastCommit: prev.lastCommit }),
          ...(lastErrorAt === undefined ? {} : { lastErrorAt })
        })
        return copy
      })
      yield* Metric.update(Metric.withAttributes(Metrics.sourcePaused, { source }), next.state === "paused" ? 1 : 0)
    })
  const committed = (source: string) =>
    Ref.update(states, (m) => {
      const copy = new Map(m)
      copy.set(source, { ...(m.get(source) ?? { state: "running", since: Date.now() }), lastCommit: Date.now() })
      return copy
    })
  return { set, committed, all: Ref.get(states) }
})

/** The live state of every source. */
export class SourceStatus extends Context.Service<SourceStatus, Effect.Success<typeof make>>()(
  "@warden/daemon/SourceStatus"
) {
  static readonly layer = Layer.effect(SourceStatus, make)
}
