/**
 * `GET /api/review/stream` (issue 36): the review queue's changes as server-sent events, so a second
 * moderator's screen follows live: `event: added` (a row entered the queue: an item a rule sent, an
 * appeal filed) and `event: decided` (a row left it: approved, rejected, upheld, denied, or superseded
 * by a newer version), each the `ReviewItem` of `GET /api/review`. It polls the state store (two
 * indexed reads a second), so it sees what any runner of a shared PostgreSQL recorded; rows are looked
 * for in a window of the last {@link OVERLAP_MILLIS} (a time is taken before its transaction commits)
 * and those already sent are remembered by key. It ends when the client goes away or the admin server
 * starts stopping (Stopping.ts: the browser's EventSource reconnects by itself).
 */
import { Clock, Effect } from "effect"
import type { SqlError } from "effect/sql"
import type { Review, ReviewStoreShape } from "../state/ReviewStore.ts"
import * as EventStream from "./EventStream.ts"

/** How far back each poll looks for rows that committed late. */
export const OVERLAP_MILLIS = 30_000
/** The most rows of each kind one poll reads. */
const POLL_LIMIT = 1000

const key = (r: Review) => `${r.source}\u001f${r.reference}\u001f${r.version}\u001f${r.kind}\u001f${r.state}`

/** Only the rows of `source` / `kind`, when given. */
export interface ReviewStreamFilters {
  readonly source?: string | undefined
  readonly kind?: string | undefined
}

/** The response streaming the queue's changes from now on, each row as `show` makes it. */
export const response = (
  store: ReviewStoreShape,
  filters: ReviewStreamFilters,
  show: (rows: ReadonlyArray<Review>) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>,
  pollMillis = 1000
) =>
  Effect.gen(function* () {
    const seen = new Map<string, number>()
    let newest = yield* Clock.currentTimeMillis
    const wanted = (r: Review) =>
      (filters.source === undefined || r.source === filters.source) &&
      (filters.kind === undefined || r.kind === filters.kind)
    const fresh = (rows: ReadonlyArray<Review>, at: (r: Review) => number) => {
      const out: Array<Review> = []
      for (const r of rows) {
        if (!wanted(r) || seen.has(key(r))) continue
        seen.set(key(r), at(r))
        newest = Math.max(newest, at(r))
        out.push(r)
      }
      return out
    }
    const poll = Effect.gen(function* () {
      const changed = yield* store.changedSince(newest - OVERLAP_MILLIS, POLL_LIMIT)
      // A row decided within the window is still among those created in it: it is news as decided only.
      const added = fresh(
        changed.added.filter((r) => r.state === "pending"),
        (r) => r.createdAt
      )
      const decided = fresh(
        changed.decided.filter((r) => r.state !== "pending"),
        (r) => r.decidedAt ?? r.createdAt
      )
      for (const [k, at] of seen) if (at < newest - OVERLAP_MILLIS) seen.delete(k)
      return { added, decided }
    })
    // What exists at connection time is the page the client already has: remember it, send nothing.
    yield* poll
    return yield* EventStream.response(
      Effect.gen(function* () {
        const { added, decided } = yield* poll
        return EventStream.events("added", yield* show(added)) + EventStream.events("decided", yield* show(decided))
      }),
      pollMillis
    )
  })
