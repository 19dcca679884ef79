/**
 * The rule that matched an item version (issue 36), on SQLite and PostgreSQL: recorded with the
 * version whether or not the rule takes a platform action, listed with each action's outcome, and
 * given by migration 0011 to versions recorded before it from their actions (a moderator's `console`
 * action is not a rule). A state whose `rule` column exists already goes through 0011 unchanged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { sqlLayer, type StateLocation } from "../src/Daemon.ts"
import type { ActionRecord } from "../src/domain/Action.ts"
import { DecisionStore } from "../src/state/DecisionStore.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import * as Migrations from "../src/state/Migrations.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { itemRecord } from "./support/ItemRecords.ts"
import { onFreshState, stateBackends } from "./support/StateBackends.ts"

const action = (seq: number, rule: string, kind: string): ActionRecord => ({
  seq,
  rule,
  kind,
  params: {},
  reason: undefined,
  status: "pending"
})

const run = <A, E>(state: StateLocation, effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(effect.pipe(Effect.provide(sqlLayer(state)), Effect.scoped))

/** Item versions and actions as a daemon before 0011 wrote them (no `rule` column). */
const insertBefore0011 = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const item = (reference: string, version: number) => ({
    source: "s",
    reference,
    version,
    content_hash: `h-${reference}-${version}`,
    content_type: "text",
    status: "analysed",
    mode: "v1",
    event: "{}",
    created_at: 1000 + version
  })
  const act = (reference: string, version: number, seq: number, rule: string, kind: string) => ({
    source: "s",
    reference,
    version,
    seq,
    rule,
    kind,
    status: "done",
    created_at: 1
  })
  yield* sql`INSERT INTO warden_items ${sql.insert([item("hidden", 1), item("hidden", 2), item("restored", 1), item("plain", 1)])}`
  yield* sql`INSERT INTO warden_actions ${sql.insert([
    act("hidden", 1, 0, "hide-threats", "hide"),
    act("hidden", 1, 1, "console", "restore"),
    act("restored", 1, 0, "console", "hide")
  ])}`
})

const rulesOf = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ reference: string; version: number | string; rule: string | null }>`SELECT reference, version, rule
      FROM warden_items ORDER BY reference, version`,
    (rows) => rows.map((r) => [r.reference, Number(r.version), r.rule])
  )
)

for (const [name, location] of stateBackends()) {
  describe(`the rule that matched, on ${name}`, () => {
    it("is recorded with a version whether or not it takes an action, and listed with each action's outcome", async () => {
      const listed = await Effect.runPromise(
        onFreshState(
          location,
          Effect.gen(function* () {
            const items = yield* ItemStore
            yield* items.recordItems([
              // A rule that only routes (or sends to review): no platform action, the rule all the same.
              { item: itemRecord("s", "flagged", 1, { rule: "flag-threats", createdAt: 3 }), sinks: [], payload: "{}" },
              {
                item: itemRecord("s", "hidden", 1, { rule: "hide-insults", createdAt: 2 }),
                sinks: [],
                payload: "{}",
                actions: [action(0, "hide-insults", "hide"), action(1, "hide-insults", "timeout")]
              },
              { item: itemRecord("s", "plain", 1, { createdAt: 1 }), sinks: [], payload: "{}" }
            ])
            const sql = yield* SqlClient.SqlClient
            yield* sql`UPDATE warden_actions SET status = 'done' WHERE seq = 0`
            return yield* (yield* DecisionStore).decisions({ limit: 10 })
          })
        )
      )
      expect(listed.map((d) => [d.reference, d.rule, d.actions])).toEqual([
        ["flagged", "flag-threats", []],
        [
          "hidden",
          "hide-insults",
          [
            { rule: "hide-insults", kind: "hide", status: "done" },
            { rule: "hide-insults", kind: "timeout", status: "pending" }
          ]
        ],
        ["plain", null, []]
      ])
    }, 60_000)

    it("0011 gives versions recorded before it the rule of their actions, never 'console'", async () => {
      const state = await location()
      await run(
        state,
        Effect.gen(function* () {
          yield* Migrations.runUpTo("0010_items_status_created_index")
          yield* insertBefore0011
        })
      )
      const rules = await run(state, rulesOf.pipe(Effect.provide(StateStore.layer)))
      expect(rules).toEqual([
        ["hidden", 1, "hide-threats"],
        ["hidden", 2, null],
        ["plain", 1, null],
        ["restored", 1, null]
      ])
    }, 60_000)

    it("a state whose warden_items has a rule column already goes through 0011 as it is", async () => {
      const state = await location()
      await run(
        state,
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* Migrations.runUpTo("0010_items_status_created_index")
          yield* insertBefore0011
          yield* sql`ALTER TABLE warden_items ADD COLUMN rule TEXT`
          yield* sql`UPDATE warden_items SET rule = 'kept' WHERE reference = 'plain'`
        })
      )
      const rules = await run(state, rulesOf.pipe(Effect.provide(StateStore.layer)))
      expect(rules).toEqual([
        ["hidden", 1, null],
        ["hidden", 2, null],
        ["plain", 1, "kept"],
        ["restored", 1, null]
      ])
    }, 60_000)
  })
}
