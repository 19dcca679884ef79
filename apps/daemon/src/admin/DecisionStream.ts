/**
 * `GET /api/decisions/stream`: new decisions as server-sent events (`event: decision`, the same JSON
 * as a row of `GET /api/decisions`), oldest first, for the console's live list. It polls the state
 * store (one indexed query a second): that sees what any runner of a shared PostgreSQL recorded, not
 * only this process. Rows are matched against a window of the last {@link OVERLAP_MILLIS}, since a
 * row's `createdAt` is taken before its transaction commits; rows already sent are remembered by key.
 */
import { Clock, Effect } from "effect"
import type { SqlError } from "effect/sql"
import type { ListedStoredDecision } from "../domain/Decision.ts"
import type { DecisionQuery, DecisionStoreShape } from "../state/DecisionStore.ts"
import * as EventStream from "./EventStream.ts"

/** How far back each poll looks for rows that committed late. */
export const OVERLAP_MILLIS = 30_000
/** The most rows one poll reads: a burst larger than this within the window is shown partly. */
const POLL_LIMIT = 1000

const key = (d: ListedStoredDecision) => `${d.source}\u001f${d.reference}\u001f${d.version}`

/**
 * The response streaming the decisions recorded from now on that match `filters`, each as `show`
 * makes it (the API's row: DecisionView); the server ends the stream (interrupts the poll) when the
 * client goes away, and it ends by itself when the server starts stopping (Stopping.ts; the browser's
 * EventSource reconnects to the next daemon by itself).
 */
export const response = (
  store: DecisionStoreShape,
  filters: Omit<DecisionQuery, "limit" | "after" | "since">,
  show: (rows: ReadonlyArray<ListedStoredDecision>) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>,
  pollMillis = 1000
) =>
  Effect.gen(function* () {
    const seen = new Map<string, number>()
    let newest = yield* Clock.currentTimeMillis
    const poll = Effect.gen(function* () {
      const rows = yield* store.decisions({ ...filters, since: newest - OVERLAP_MILLIS, limit: POLL_LIMIT })
      const fresh = rows.filter((d) => !seen.has(key(d)))
      for (const d of fresh) {
        seen.set(key(d), d.createdAt)
        newest = Math.max(newest, d.createdAt)
      }
      for (const [k, at] of seen) if (at < newest - OVERLAP_MILLIS) seen.delete(k)
      return fresh.reverse()
    })
    // What exists at connection time is the page the client already has: remember it, send nothing.
    yield* poll
    return yield* EventStream.response(
      Effect.map(Effect.flatMap(poll, show), (rows) => EventStream.events("decision", rows)),
      pollMillis
    )
  })
