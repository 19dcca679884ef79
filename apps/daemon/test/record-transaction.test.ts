/**
 * The record transaction (ItemStore.recordItems), on SQLite and PostgreSQL alike: a version recorded
 * before is skipped and queued nowhere again, a round mixing both records only what is new, and a row
 * that breaks any other rule (a NOT NULL) fails the whole round, leaving nothing of it behind. On
 * SQLite its inserts run `OR FAIL` (no statement journal): were they `OR IGNORE`, the broken row
 * would be dropped without a word and the rest of its round recorded.
 */
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import type { ActionRecord } from "../src/domain/Action.ts"
import type { ItemRecord } from "../src/domain/ItemVersion.ts"
import { ItemStore, type RecordEntry } from "../src/state/ItemStore.ts"
import { itemRecord } from "./support/ItemRecords.ts"
import { onFreshState, stateBackends } from "./support/StateBackends.ts"

const hide: ActionRecord = {
  seq: 0,
  rule: "hateful",
  kind: "hide",
  params: undefined,
  reason: undefined,
  status: "pending"
}

const entry = (reference: string, fields: Partial<ItemRecord> = {}, actions = [hide]): RecordEntry => ({
  item: itemRecord("s", reference, 1, fields),
  sinks: ["jsonl", "hook"],
  payload: JSON.stringify({ reference }),
  actions
})

/** How many rows each table of the record holds. */
const counts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const count = (table: "warden_items" | "warden_outbox" | "warden_actions") =>
    Effect.map(sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql(table)}`, (rows) => Number(rows[0]!.n))
  return {
    items: yield* count("warden_items"),
    outbox: yield* count("warden_outbox"),
    actions: yield* count("warden_actions")
  }
})

for (const [name, location] of stateBackends()) {
  describe(`the record transaction on ${name}`, () => {
    it.live(
      "a version recorded before is skipped and not queued again; a mixed round records only the new one",
      () =>
        onFreshState(
          location,
          Effect.gen(function* () {
            const store = yield* ItemStore
            expect(yield* store.recordItems([entry("a")])).toEqual([true])
            expect(yield* counts).toEqual({ items: 1, outbox: 2, actions: 1 })
            // the same version again (a redelivered batch), next to a new one
            expect(yield* store.recordItems([entry("a"), entry("b")])).toEqual([false, true])
            expect(yield* counts).toEqual({ items: 2, outbox: 4, actions: 2 })
          })
        ),
      30_000
    )

    it.live(
      "a row that breaks a NOT NULL fails the whole round: nothing of it is recorded or queued",
      () =>
        onFreshState(
          location,
          Effect.gen(function* () {
            const store = yield* ItemStore
            yield* store.recordItems([entry("before")])
            // a bug upstream: an item without its content hash, in the middle of a round
            const brokenItem = yield* Effect.exit(
              store.recordItems([entry("c"), entry("d", { contentHash: null as never }), entry("e")])
            )
            expect(brokenItem._tag).toBe("Failure")
            expect(yield* counts).toEqual({ items: 1, outbox: 2, actions: 1 })
            // the same in the outbox's insert (an action without its rule): the items already inserted go too
            const brokenAction = yield* Effect.exit(
              store.recordItems([entry("f"), entry("g", {}, [{ ...hide, rule: null as never }])])
            )
            expect(brokenAction._tag).toBe("Failure")
            expect(yield* counts).toEqual({ items: 1, outbox: 2, actions: 1 })
            // and the store goes on
            expect(yield* store.recordItems([entry("c"), entry("e")])).toEqual([true, true])
            expect(yield* counts).toEqual({ items: 3, outbox: 6, actions: 3 })
          })
        ),
      30_000
    )
  })
}
