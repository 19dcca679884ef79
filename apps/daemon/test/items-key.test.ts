/**
 * Migration 0008: warden_items keyed by (reference, source, version), the (reference, version) index
 * gone. On SQLite and PostgreSQL, a state made by the migrations before it keeps every row and column
 * through it, the key still refuses a second copy of a version, lookups by reference find what they
 * found before, and on SQLite the lookups the data path runs seek the new key.
 */
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { sqlLayer, type StateLocation } from "../src/Daemon.ts"
import { ItemStore, unanalysedStatement } from "../src/state/ItemStore.ts"
import * as Migrations from "../src/state/Migrations.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { itemRecord } from "./support/ItemRecords.ts"
import { stateBackends } from "./support/StateBackends.ts"

/** The migrations a state had before 0008. */
const migrateTo0007 = Migrations.runUpTo("0007_owner")

/** Rows as the daemon before 0008 wrote them: two sources share a reference, one item has two versions. */
const oldRows = [
  ["rss", "rss:feed/1", 1, "analysed", "HATEFUL", "HIGH", 3_000, null, "u-1"],
  ["rss", "rss:feed/1", 2, "analysed", "NEUTRAL", "NONE", 4_000, null, "u-1"],
  ["discord", "rss:feed/1", 1, "failed", null, null, 5_000, null, null],
  ["rss", "rss:feed/2", 1, "analysed", "THREAT", "MEDIUM", 6_000, "2026-01-01T00:00:00.000Z", "u-2"]
] as const

const insertOld = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const [source, reference, version, status, type, severity, createdAt, erasedAt, author] of oldRows) {
    yield* sql`INSERT INTO warden_items ${sql.insert({
      source,
      reference,
      version,
      content_hash: `hash-${source}-${version}`,
      content_type: "text",
      status,
      mode: "v1",
      endpoint: "/analyze/v1/text",
      request: `{"text":"${reference} v${version}"}`,
      response: "{}",
      verdict:
        type === null ? null : JSON.stringify({ type, classifications: [type], severity, recommendedAction: "KEEP" }),
      error: status === "failed" ? "API unavailable" : null,
      segments: 1,
      event: `{"kind":"upsert","reference":"${reference}"}`,
      verdict_type: type,
      severity,
      recommended_action: null,
      classifications: null,
      analysed_at: null,
      created_at: createdAt,
      deleted_at: null,
      erased_at: erasedAt,
      author
    })}`
  }
})

const allRows = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<Record<string, unknown>>`SELECT * FROM warden_items ORDER BY source, reference, version`.pipe(
    // PostgreSQL answers BIGINT as a string: compare values, not drivers.
    Effect.map((rows) =>
      rows.map((row) => ({ ...row, version: Number(row.version), created_at: Number(row.created_at) }))
    )
  )
)

/** The key's columns and the indexes of warden_items, as the database reports them. */
const layout = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        const key = yield* sql<{ column: string }>`
          SELECT a.attname AS column FROM pg_index i
          JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
          JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
          WHERE i.indrelid = 'warden_items'::regclass AND i.indisprimary ORDER BY k.n`
        const indexes = yield* sql<{ name: string }>`
          SELECT indexname AS name FROM pg_indexes WHERE tablename = 'warden_items' AND indexname NOT LIKE '%pkey'`
        return { key: key.map((r) => r.column), indexes: indexes.map((r) => r.name).sort() }
      }),
    orElse: () =>
      Effect.gen(function* () {
        const key = yield* sql<{ name: string }>`SELECT name FROM pragma_index_info('sqlite_autoindex_warden_items_1')`
        const indexes = yield* sql<{ name: string }>`
          SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'warden_items' AND name NOT LIKE 'sqlite_%'`
        return { key: key.map((r) => r.name), indexes: indexes.map((r) => r.name).sort() }
      })
  })
})

const INDEXES = [
  "warden_items_author",
  "warden_items_author_key",
  "warden_items_author_unkeyed",
  "warden_items_listing",
  "warden_items_listing_severity",
  "warden_items_listing_source",
  "warden_items_listing_type",
  "warden_items_status_created"
]

const run = <A, E>(state: StateLocation, effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(effect.pipe(Effect.provide(sqlLayer(state)), Effect.scoped))

for (const [name, location] of stateBackends()) {
  describe(`warden_items keyed by reference first, on ${name}`, () => {
    it("a state from before the change keeps every row and column, and gets the new key and indexes", async () => {
      const state = await location()
      const old = await run(
        state,
        Effect.gen(function* () {
          yield* migrateTo0007
          yield* insertOld
          return { rows: yield* allRows, layout: yield* layout }
        })
      )
      expect(old.layout.key).toEqual(["source", "reference", "version"])
      expect(old.layout.indexes).toContain("warden_items_reference")

      const after = await run(
        state,
        Effect.gen(function* () {
          const items = yield* ItemStore
          const sql = yield* SqlClient.SqlClient
          const rows = yield* allRows
          const shape = yield* layout
          // The key still refuses a second copy of a version, and the data path's insert skips it.
          const duplicate = yield* Effect.exit(
            sql`INSERT INTO warden_items (source, reference, version, content_hash, content_type, status, mode, event, created_at)
              VALUES ('rss', 'rss:feed/1', 2, 'h', 'text', 'analysed', 'v1', '{}', 1)`
          )
          yield* items.recordItems([
            { item: itemRecord("rss", "rss:feed/1", 2, { createdAt: 9_000 }), sinks: [], payload: "{}" }
          ])
          const latest = yield* items.latestVersions("rss", ["rss:feed/1", "rss:feed/2", "rss:feed/3"])
          const found = yield* items.item(undefined, "rss:feed/1", undefined)
          const sources = yield* items.sourcesOf("rss:feed/1")
          return { rows, shape, duplicate, latest, found, sources, rowsAfter: yield* allRows }
        }).pipe(Effect.provide(StateStore.layer))
      )
      // Later migrations (0011: the rule, 0012: the author key and name) add columns, empty on the rows from before.
      const asBefore = (rows: ReadonlyArray<Record<string, unknown>>) =>
        rows.map(({ author_key, author_name, rule, ...row }) => {
          expect([author_key, author_name, rule]).toEqual([null, null, null])
          return row
        })
      expect(asBefore(after.rows)).toEqual(old.rows)
      expect(after.shape.key).toEqual(["reference", "source", "version"])
      expect(after.shape.indexes).toEqual(INDEXES)
      expect(after.duplicate._tag).toBe("Failure")
      expect(asBefore(after.rowsAfter)).toEqual(old.rows)
      expect([...after.latest.keys()].sort()).toEqual(["rss:feed/1", "rss:feed/2"])
      expect(after.latest.get("rss:feed/1")?.version).toBe(2)
      expect(Option.getOrUndefined(Option.map(after.found, (r) => r.version))).toBe(2)
      expect(after.sources).toEqual(["discord", "rss"])
    }, 60_000)

    it("a state that ran 0009 has its (source, status) index replaced by 0010's", async () => {
      const state = await location()
      await run(
        state,
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* Migrations.runUpTo("0009_items_status_index")
          // what 0009 built before it was emptied (a state an earlier version left)
          yield* sql`CREATE INDEX warden_items_status ON warden_items (source, status)`
        })
      )
      const shape = await run(state, layout.pipe(Effect.provide(StateStore.layer)))
      expect(shape.indexes).toEqual(INDEXES)
    }, 60_000)

    it("a new state is made with the new key", async () => {
      const state = await location()
      const shape = await run(state, layout.pipe(Effect.provide(StateStore.layer)))
      expect(shape.key).toEqual(["reference", "source", "version"])
      expect(shape.indexes).toEqual(INDEXES)
    }, 60_000)
  })
}

describe("the lookups on the new key, and the pipeline's count (SQLite)", () => {
  it("by reference, by source and references, by reference, source and version: seeks on the key; counts by status: the status index; the re-analysis sweep: seeks", async () => {
    const [, location] = stateBackends()[0]!
    const state = await location()
    const plans = await run(
      state,
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const plan = (text: string, params: ReadonlyArray<unknown>) =>
          Effect.map(sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params), (rows) =>
            rows.map((r) => r.detail).join(" | ")
          )
        return [
          yield* plan("SELECT * FROM warden_items WHERE reference = ? ORDER BY version DESC", ["r"]),
          yield* plan("SELECT * FROM warden_items WHERE source = ? AND reference IN (?, ?)", ["s", "a", "b"]),
          yield* plan("SELECT * FROM warden_items WHERE source = ? AND reference = ? AND version = ?", ["s", "r", 1]),
          // GET /api/pipeline's count (every 5 s from the console): the small index, not the table.
          yield* plan(
            "SELECT source, status, COUNT(*) AS n FROM warden_items GROUP BY source, status ORDER BY source, status",
            []
          ),
          // The re-analysis sweep (every 5 s per source): seeks, never reads the source's every version.
          yield* Effect.flatMap(
            Effect.sync(() => unanalysedStatement(sql, "s", ["text"], 100).compile()),
            ([text, params]) => plan(text, params)
          )
        ]
      }).pipe(Effect.provide(StateStore.layer))
    )
    for (const plan of plans.slice(0, 3))
      expect(plan).toMatch(/SEARCH warden_items USING INDEX sqlite_autoindex_warden_items_1 \(reference=\?/u)
    expect(plans[3]).toBe("SCAN warden_items USING COVERING INDEX warden_items_status_created")
    const sweep = plans[4]!
    expect(sweep).toContain("SEARCH i USING INDEX warden_items_status_created (source=? AND status=?)")
    expect(sweep).toContain(
      "SEARCH i USING INDEX sqlite_autoindex_warden_items_1 (reference=? AND source=? AND version=?)"
    )
    expect(sweep).not.toMatch(/SCAN (i|warden_items)\b/u)
    // walked in the index's order: no sort of the waiting versions
    expect(sweep.split(" | ").filter((step) => step.includes("TEMP B-TREE"))).toHaveLength(1)
  }, 60_000)
})
