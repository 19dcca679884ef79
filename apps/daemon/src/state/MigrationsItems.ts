/**
 * The reshaping of warden_items (migrations 0008-0012): re-keyed by reference, the (source, status,
 * created_at) index, the matched rule and the author columns. Portable SQL (Migrations.ts).
 */
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"
import { hasColumn } from "./MigrationColumns.ts"

const decodeItemCount = Rows.decodeCount("warden_items")
/** warden_items' primary key constraint (PostgreSQL). */
const decodeConstraint = Rows.decode("pg_constraint", Schema.Struct({ conname: Schema.String }))
/** A table's or index's CREATE statement (SQLite). */
const decodeStatements = Rows.decode("sqlite_schema", Schema.Struct({ sql: Schema.String }))

/**
 * warden_items keyed by (reference, source, version) instead of (source, reference, version), and
 * without the (reference, version) index that the reference-first key now serves. References are
 * hashes, so each of those two indexes took every batch's rows at random pages: the record
 * transaction wrote ~100 scattered pages per index and batch, and once the index outgrew SQLite's
 * page cache each insert read them back. One random index instead of two: 79.5 -> 53.5-57.3 µs of
 * CPU per item recorded over 300,000 versions (bench/sqlite-items.ts, docs/BENCHMARKS.md). Every
 * lookup stays a seek: by reference (alone or with source and version) on the key, by source on
 * `warden_items_listing_source`.
 *
 * SQLite cannot change a table's key: the table is copied into a new one (about a minute per
 * million rows, 2 GB, on the benchmark machine; the freed pages are reused or returned by the
 * incremental vacuum). PostgreSQL swaps the key's index in place.
 */
export const keyItemsByReference = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* decodeItemCount(yield* sql`SELECT COUNT(*) AS n FROM warden_items`)
  if (rows > 0) {
    yield* Effect.logInfo(
      `state: re-keying warden_items by reference (${rows.toLocaleString("en-US")} rows, once; SQLite copies the table, about a minute per million rows)`
    )
  }
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        const [key] = yield* decodeConstraint(
          yield* sql`SELECT conname FROM pg_constraint WHERE conrelid = 'warden_items'::regclass AND contype = 'p'`
        )
        if (key !== undefined) yield* sql`ALTER TABLE warden_items DROP CONSTRAINT ${sql(key.conname)}`
        yield* sql`ALTER TABLE warden_items ADD PRIMARY KEY (reference, source, version)`
        yield* sql`DROP INDEX IF EXISTS warden_items_reference`
      }),
    orElse: () =>
      Effect.gen(function* () {
        // The new table is the stored one's own statement (0001's columns, 0006's appended ones) with
        // the key reordered; its indexes are the stored ones but the reference index. Read, not
        // written again here, so the copy cannot drift from what the earlier migrations made.
        const [table] = yield* decodeStatements(
          yield* sql`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'warden_items'`
        )
        const create = (table?.sql ?? "")
          .replace(/^CREATE TABLE warden_items\b/u, "CREATE TABLE warden_items_by_reference")
          .replace("PRIMARY KEY (source, reference, version)", "PRIMARY KEY (reference, source, version)")
        if (
          !create.startsWith("CREATE TABLE warden_items_by_reference") ||
          !create.includes("(reference, source, version)")
        ) {
          return yield* Effect.die(new Error(`warden_items is not as migrations 0001-0007 made it: ${table?.sql}`))
        }
        const indexes = yield* decodeStatements(
          yield* sql`SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'warden_items' AND sql IS NOT NULL
            AND name <> 'warden_items_reference'`
        )
        yield* sql.unsafe(create)
        // Same columns in the same order; in insertion order, so the new rowids (and pages) follow the old.
        yield* sql`INSERT INTO warden_items_by_reference SELECT * FROM warden_items ORDER BY rowid`
        yield* sql`DROP TABLE warden_items`
        yield* sql`ALTER TABLE warden_items_by_reference RENAME TO warden_items`
        for (const index of indexes) yield* sql.unsafe(index.sql)
      })
  })
})

/**
 * 0009 built a (source, status) index; 0010 replaces it with (source, status, created_at). Kept as an
 * empty step: a state at 0008 or earlier goes straight to 0010's index instead of building, over every
 * item version, one that 0010 drops at once. States that ran it keep theirs until 0010 drops it.
 */
export const indexItemsByStatus = Effect.void

/**
 * Item versions by source, status and age. `GET /api/pipeline` (the console's pipeline page, every 5 s)
 * counts by source and status from it instead of the table: on SQLite the count runs on the daemon's
 * thread, and over 1,000,000 item versions (2 GB) the table scan took 0.9 s with the file in the OS
 * cache and 36 s without, the index 62 ms. The re-analysis sweep (ItemStore.unanalysedStatement) reads
 * a source's oldest `unanalysed` versions from it in order and stops at its limit, instead of sorting
 * every one of them at each sweep (after a long outage in `allow` mode, hundreds of thousands). Entries
 * go at the end of their (source, status): `created_at` grows with the rowid.
 */
export const indexItemsByStatusAndAge = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_status_created ON warden_items (source, status, created_at)`
  yield* sql`DROP INDEX IF EXISTS warden_items_status`
})

/**
 * The rule that matched each item version (issue 36): the console's Outcome column and decision page
 * name it even when the rule takes no platform action (it only routes to sinks, or sends to review),
 * which no other table records. Versions recorded before get the rule of their actions where they had
 * one (a moderator's `console` action is not a rule); the others stay NULL: which rule, if any, matched
 * them is not known. Adding a nullable column rewrites no row on either database. The column is added
 * only when absent, so a state where another migration added it already goes on.
 */
export const addItemsRule = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  if (yield* hasColumn("warden_items", "rule")) return
  yield* sql`ALTER TABLE warden_items ADD COLUMN rule TEXT`
  yield* sql`UPDATE warden_items SET rule = (SELECT MIN(a.rule) FROM warden_actions a
      WHERE a.source = warden_items.source AND a.reference = warden_items.reference
      AND a.version = warden_items.version AND a.rule <> 'console')
    WHERE (source, reference, version) IN (SELECT source, reference, version FROM warden_actions WHERE rule <> 'console')`
})

/**
 * Items by author (issue 37): the author key (`<platform>:<identifier>`, the same person across the
 * sources of one platform) and the username as the event gave it, filled at record time. The index
 * serves an author's history newest first, the counts over a window, and the record transaction's read
 * of an author's recent items (`when.author`). Rows recorded before have neither: the source's platform
 * is in the config, not in the state, so the daemon fills `author_key` at start from `author` and the
 * source's connector type (AuthorBackfill); `author_name` stays empty for them.
 */
export const addItemAuthors = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE warden_items ADD COLUMN author_key TEXT`
  yield* sql`ALTER TABLE warden_items ADD COLUMN author_name TEXT`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_author_key ON warden_items (author_key, created_at DESC)`
  // The rows AuthorBackfill has yet to fill (none once it ran: new rows get their key as they are recorded).
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_author_unkeyed ON warden_items (source)
    WHERE author IS NOT NULL AND author_key IS NULL`
})
