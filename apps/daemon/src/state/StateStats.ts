/**
 * How much room the state takes, per table: rows and bytes (tables with their indexes), the file and
 * its free pages on SQLite, and the age of the oldest batch message not processed yet. What
 * `warden state stats` prints and `/metrics` exports, so an operator sees the disk fill before it does.
 */
import { Effect, Option, Schema } from "effect"
import { Snowflake } from "effect/cluster"
import { SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** One table: its rows and its bytes on disk (indexes included). */
export interface TableStats {
  readonly table: string
  readonly rows: number
  readonly bytes: number
}

/** The whole state's size. */
export interface Stats {
  readonly tables: ReadonlyArray<TableStats>
  /** The database's size: the SQLite file (pages in use and free), or the PostgreSQL database. */
  readonly totalBytes: number
  /** SQLite: bytes of free pages inside the file (reused by the next writes; `VACUUM` returns them). */
  readonly freeBytes: number
  /** When the oldest cluster message not processed yet was sent (epoch millis); undefined when none waits. */
  readonly oldestUnprocessedAt: number | undefined
}

/** Bytes per table: a number on SQLite (`SUM`), text on PostgreSQL (`::text` of a BIGINT). */
const TableBytes = Schema.Struct({ tbl: Schema.String, bytes: Rows.Int })
const decodePageBytes = Rows.decode("dbstat", TableBytes)
const decodeRelationBytes = Rows.decode("pg_class", TableBytes)
const decodeDatabaseBytes = Rows.decode("pg_database_size", Schema.Struct({ bytes: Rows.Int }))
const decodePageCount = Rows.decodePragma("page_count")
const decodePageSize = Rows.decodePragma("page_size")
const decodeFreePages = Rows.decodePragma("freelist_count")
/** The names of the Warden and cluster tables (the same shape from both catalogues). */
const decodeNames = Rows.decode("the catalogue (pg_tables, sqlite_schema)", Schema.Struct({ name: Schema.String }))
/** The oldest unprocessed message's id (a snowflake, as text), `null` when none waits. */
const decodeOldest = Rows.decode("cluster_messages", Schema.Struct({ id: Rows.Text }))

const sqliteBytes = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    // dbstat (compiled into node:sqlite) gives the pages of every table and index; indexes are
    // counted with their table through sqlite_schema.
    const rows = yield* decodePageBytes(
      yield* sql`SELECT s.tbl_name AS tbl, SUM(d.pgsize) AS bytes FROM dbstat d
        JOIN sqlite_schema s ON s.name = d.name GROUP BY s.tbl_name`
    )
    const pages = yield* decodePageCount(yield* sql`PRAGMA page_count`)
    const size = yield* decodePageSize(yield* sql`PRAGMA page_size`)
    const free = yield* decodeFreePages(yield* sql`PRAGMA freelist_count`)
    const pageSize = Option.getOrElse(size, () => 4096)
    return {
      bytes: new Map(rows.map((r) => [r.tbl, r.bytes])),
      total: Option.getOrElse(pages, () => 0) * pageSize,
      free: Option.getOrElse(free, () => 0) * pageSize
    }
  })

const pgBytes = (sql: SqlClient.SqlClient, tables: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const rows = yield* decodeRelationBytes(
      yield* sql`SELECT relname AS tbl, pg_total_relation_size(oid)::text AS bytes FROM pg_class
        WHERE relkind = 'r' AND ${sql.in("relname", tables)}`
    )
    const [db] = yield* decodeDatabaseBytes(yield* sql`SELECT pg_database_size(current_database())::text AS bytes`)
    return { bytes: new Map(rows.map((r) => [r.tbl, r.bytes])), total: db?.bytes ?? 0, free: 0 }
  })

/** Reads the stats of every Warden and cluster table of the state database in context. */
export const read = Effect.fn("StateStats.read")(function* () {
  const sql = yield* SqlClient.SqlClient
  const names = yield* Effect.flatMap(
    sql.onDialectOrElse({
      pg: () =>
        sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()
          AND (tablename LIKE 'warden\\_%' OR tablename LIKE 'cluster\\_%') ORDER BY tablename`,
      orElse: () =>
        sql`SELECT name FROM sqlite_schema WHERE type = 'table'
          AND (name LIKE 'warden\\_%' ESCAPE '\\' OR name LIKE 'cluster\\_%' ESCAPE '\\') ORDER BY name`
    }),
    decodeNames
  )
  const tables = names.map((n) => n.name)
  const sizes = yield* sql.onDialectOrElse({ pg: () => pgBytes(sql, tables), orElse: () => sqliteBytes(sql) })
  const stats: Array<TableStats> = []
  for (const table of tables) {
    const rows = yield* Rows.decodeCount(table)(yield* sql`SELECT COUNT(*) AS n FROM ${sql(table)}`)
    stats.push({ table, rows, bytes: sizes.bytes.get(table) ?? 0 })
  }
  let oldestUnprocessedAt: number | undefined
  if (tables.includes("cluster_messages")) {
    const [oldest] = yield* decodeOldest(
      yield* sql`SELECT CAST(MIN(id) AS TEXT) AS id FROM cluster_messages WHERE processed = ${sql.onDialectOrElse({
        pg: () => sql.literal("FALSE"),
        orElse: () => sql.literal("0")
      })}`
    )
    if (oldest?.id != null) oldestUnprocessedAt = Snowflake.timestamp(Snowflake.Snowflake(oldest.id))
  }
  return { tables: stats, totalBytes: sizes.total, freeBytes: sizes.free, oldestUnprocessedAt } satisfies Stats
})

const human = (bytes: number): string =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(2)} GB`
    : bytes >= 1024 ** 2
      ? `${(bytes / 1024 ** 2).toFixed(1)} MB`
      : bytes >= 1024
        ? `${(bytes / 1024).toFixed(1)} KB`
        : `${bytes} B`

/** The stats as a table for a terminal. */
export const format = (stats: Stats, now: number): string => {
  const width = Math.max(5, ...stats.tables.map((t) => t.table.length))
  const lines = [`${"table".padEnd(width)}  ${"rows".padStart(10)}  ${"bytes".padStart(10)}`]
  for (const t of stats.tables) {
    lines.push(`${t.table.padEnd(width)}  ${String(t.rows).padStart(10)}  ${human(t.bytes).padStart(10)}`)
  }
  lines.push(`total ${human(stats.totalBytes)}${stats.freeBytes > 0 ? ` (${human(stats.freeBytes)} free pages)` : ""}`)
  const items = stats.tables.find((t) => t.table === "warden_items")?.rows ?? 0
  if (items > 0) lines.push(`per item stored: ${human(Math.round(stats.totalBytes / items))}`)
  lines.push(
    stats.oldestUnprocessedAt === undefined
      ? "oldest unprocessed batch message: none"
      : `oldest unprocessed batch message: ${Math.round((now - stats.oldestUnprocessedAt) / 1000)} s old`
  )
  return lines.join("\n")
}
