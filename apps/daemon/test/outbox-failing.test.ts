/**
 * The outbox keeps when a delivery first failed (migration 0017), on SQLite and PostgreSQL alike: a
 * second failure keeps the first one's time (a record's retry window does not restart), `failing`
 * names each sink with failed records since the earliest, and the backlog says how many wait and since
 * when the oldest was queued (`warden_sink_oldest_pending_seconds`).
 */
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { ItemStore } from "../src/state/ItemStore.ts"
import { OutboxStore } from "../src/state/OutboxStore.ts"
import { itemRecord, verdictRecord } from "./support/ItemRecords.ts"
import { onFreshState, stateBackends } from "./support/StateBackends.ts"

for (const [name, fresh] of stateBackends()) {
  describe(`the outbox's first failures on ${name}`, () => {
    it.live("keeps the first failure's time, and answers the failing sinks and the backlog's oldest", () =>
      onFreshState(
        fresh,
        Effect.gen(function* () {
          const items = yield* ItemStore
          const outbox = yield* OutboxStore
          for (const [i, ref] of ["a", "b"].entries()) {
            const r = verdictRecord(ref)
            yield* items.recordItems([
              {
                item: itemRecord("s", ref, 1, { verdict: r.verdict, analysedAt: r.analysedAt, createdAt: 1_000 + i }),
                sinks: ["hook", "file"],
                payload: JSON.stringify(r)
              }
            ])
          }
          expect(yield* outbox.failing).toEqual([])
          expect(yield* outbox.sinkBacklog("hook")).toEqual({ pending: 2, oldest: 1_000 })
          const [a] = yield* outbox.pendingOutbox("hook", 1)
          expect(a?.first_failed_at).toBeNull()
          yield* outbox.markAttemptFailed(a!.id, "HTTP 503", 0, 5_000)
          yield* outbox.markAttemptFailed(a!.id, "HTTP 503", 0, 9_000)
          const [again] = yield* outbox.pendingOutbox("hook", 1)
          expect({ attempts: again?.attempts, first: again?.first_failed_at }).toEqual({ attempts: 2, first: 5_000 })
          expect(yield* outbox.failing).toEqual([{ sink: "hook", since: 5_000, records: 1 }])
          yield* outbox.markDelivered([a!.id])
          expect(yield* outbox.failing).toEqual([])
          expect(yield* outbox.sinkBacklog("hook")).toEqual({ pending: 1, oldest: 1_001 })
          expect(yield* outbox.sinkBacklog("none")).toEqual({ pending: 0, oldest: undefined })
        })
      )
    )
  })
}
