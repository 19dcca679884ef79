/**
 * The per-key erase statements: for one item version, its content goes from the items, reviews,
 * segments, outbox and dead letters, the sinks' tables (as each `SinkStore` declares), the feedback
 * sent and the processed cluster messages; what dedupe, statistics and audits need is kept. Also the
 * SQLite WAL checkpoint that ends an erasure.
 */
import type { SinkStore } from "@warden/sink"
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as Like from "./internal/Like.ts"
import * as Rows from "./internal/Rows.ts"
import { type Counts, ZERO } from "./ErasureCounts.ts"
import type { Key } from "./ErasureKeys.ts"

/** What an erased item's `event` column holds: no content, enough to say what happened. */
export const erasedEvent = (reference: string) => JSON.stringify({ reference, erased: true })

/** A verdict record (outbox, dead letter, `sql` sink) without its content fields. */
export const withoutContent = (payload: string): string => {
  try {
    const record = JSON.parse(payload) as Record<string, unknown>
    if (typeof record !== "object" || record === null) return "{}"
    delete record.text
    delete record.permalink
    delete record.author
    return JSON.stringify(record)
  } catch {
    return "{}"
  }
}

/** Whether a table exists: COUNT(*) of the catalogue. */
const decodeTableCount = Rows.decodeCount("the catalogue (information_schema.tables, sqlite_master)")

/** A JSON payload column and the row's id. */
const PayloadRow = Schema.Struct({ payload: Schema.String, id: Schema.String })
const decodePayloads = {
  warden_outbox: Rows.decode("warden_outbox", PayloadRow),
  warden_dead_letters: Rows.decode("warden_dead_letters", PayloadRow)
}
/** A record column of a sink's table, rewritten by its item key. */
const RecordRow = Schema.Struct({ payload: Schema.String })

/** The erase statements on the state store's SQL client, for the sinks' tables `stores`. */
export const makeStatements = (sql: SqlClient.SqlClient, stores: ReadonlyArray<SinkStore.SinkStore>) => {
  const tableExists = (name: string) =>
    sql
      .onDialectOrElse({
        pg: () =>
          sql`SELECT COUNT(*) AS n FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_name = ${name}`,
        orElse: () => sql`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${name}`
      })
      .pipe(
        Effect.flatMap(decodeTableCount),
        Effect.map((n) => n > 0)
      )

  /** Rewrites the JSON payload column of the rows of one item version without its content fields. */
  const rewritePayloads = (table: keyof typeof decodePayloads, column: string, key: Key) =>
    Effect.gen(function* () {
      const rows = yield* decodePayloads[table](
        yield* sql`SELECT ${sql(column)} AS payload, id FROM ${sql(table)}
        WHERE source = ${key.source} AND reference = ${key.reference} AND version = ${key.version}`
      )
      let changed = 0
      for (const row of rows) {
        const stripped = withoutContent(row.payload)
        if (stripped === row.payload) continue
        changed += 1
        yield* sql`UPDATE ${sql(table)} SET ${sql(column)} = ${stripped} WHERE id = ${row.id}`
      }
      return changed
    })

  /**
   * Erases one item version from a sink's table, as its store declares: each record column rewritten
   * without content and author, each content and author column set to NULL. Counts the rows changed.
   */
  const eraseStore = (store: SinkStore.SinkStore, key: Key) =>
    Effect.gen(function* () {
      const where = sql`source = ${key.source} AND reference = ${key.reference} AND version = ${key.version}`
      const changed = new Set<string>()
      for (const column of store.records ?? []) {
        const rows = yield* Rows.decode(
          store.table,
          RecordRow
        )(yield* sql`SELECT ${sql(column)} AS payload FROM ${sql(store.table)} WHERE ${where}`)
        for (const row of rows) {
          const stripped = withoutContent(row.payload)
          if (stripped === row.payload) continue
          changed.add(row.payload)
          yield* sql`UPDATE ${sql(store.table)} SET ${sql(column)} = ${stripped}
            WHERE ${where} AND ${sql(column)} = ${row.payload}`
        }
      }
      const nulled = [...(store.content ?? []), ...(store.author ?? [])]
      let cleared = 0
      if (nulled.length > 0) {
        const rows = yield* sql<{ one: number }>`UPDATE ${sql(store.table)}
          SET ${sql.update(Object.fromEntries(nulled.map((c) => [c, null])))}
          WHERE ${where} AND ${sql.or(nulled.map((c) => sql`${sql(c)} IS NOT NULL`))} RETURNING 1 AS one`
        cleared = rows.length
      }
      return Math.max(changed.size, cleared)
    })

  /** Erases the content of item versions (one transaction); counts what changed. */
  const eraseKeys = (keys: ReadonlyArray<Key>, options: { readonly clusterMessages: boolean }) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const counts = { ...ZERO }
        const sinkTables = yield* Effect.filter(stores, (store) => tableExists(store.table))
        const cluster = options.clusterMessages && (yield* tableExists("cluster_messages"))
        const now = new Date().toISOString()
        const references = new Map<string, { source: string; reference: string }>()
        for (const key of keys) {
          const where = sql`source = ${key.source} AND reference = ${key.reference} AND version = ${key.version}`
          const items = yield* sql<{ one: number }>`UPDATE warden_items SET request = NULL, response = NULL,
              event = ${erasedEvent(key.reference)}, author = NULL, author_key = NULL, author_name = NULL,
              erased_at = ${now}
            WHERE ${where} AND erased_at IS NULL RETURNING 1 AS one`
          counts.items += items.length
          // An appeal's statement is the author's words; a note may quote them.
          const reviews = yield* sql<{ one: number }>`UPDATE warden_review SET statement = NULL, note = NULL,
              author_key = NULL
            WHERE ${where} AND (statement IS NOT NULL OR note IS NOT NULL OR author_key IS NOT NULL) RETURNING 1 AS one`
          counts.reviews += reviews.length
          const segments = yield* sql<{ one: number }>`DELETE FROM warden_segments WHERE ${where} RETURNING 1 AS one`
          counts.segments += segments.length
          counts.outbox += yield* rewritePayloads("warden_outbox", "payload", key)
          counts.deadLetters += yield* rewritePayloads("warden_dead_letters", "payload", key)
          for (const store of sinkTables) counts.sqlSink += yield* eraseStore(store, key)
          const feedback = yield* sql<{
            one: number
          }>`UPDATE warden_feedback SET request = ${erasedEvent(key.reference)}
            WHERE ${where} AND request <> ${erasedEvent(key.reference)} RETURNING 1 AS one`
          counts.feedback += feedback.length
          yield* sql`DELETE FROM warden_reanalyse WHERE source = ${key.source} AND reference = ${key.reference}
            AND version <= ${key.version}`
          references.set(`${key.source}\u001f${key.reference}`, { source: key.source, reference: key.reference })
        }
        for (const { source, reference } of references.values()) {
          const letters = yield* sql<{ one: number }>`DELETE FROM warden_source_dead_letters
            WHERE source = ${source} AND reference = ${reference} RETURNING 1 AS one`
          counts.sourceDeadLetters += letters.length
          if (cluster) {
            // A processed batch message is history (ClusterTables.purgeProcessed); one still to be
            // processed is work in flight and stays. The reference appears as a JSON string, or, in the
            // events' JSON text of a message (BatchEvent.toText), as that string escaped once more.
            const quoted = JSON.stringify(reference)
            const pattern = Like.containing(quoted)
            const nested = Like.containing(JSON.stringify(quoted).slice(1, -1))
            const processed = sql.onDialectOrElse({ pg: () => sql.literal("TRUE"), orElse: () => sql.literal("1") })
            yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM cluster_messages
              WHERE processed = ${processed} AND (payload LIKE ${pattern} ESCAPE '\\'
                OR payload LIKE ${nested} ESCAPE '\\'))`
            const messages = yield* sql<{ one: number }>`DELETE FROM cluster_messages
              WHERE processed = ${processed} AND (payload LIKE ${pattern} ESCAPE '\\'
                OR payload LIKE ${nested} ESCAPE '\\') RETURNING 1 AS one`
            counts.clusterMessages += messages.length
          }
        }
        return { counts: counts as Counts, references: [...references.values()] }
      })
    )

  /** SQLite: copies the WAL into the file and empties it, so no old page image is left in it. */
  const checkpoint = sql.onDialectOrElse({
    sqlite: () => sql`PRAGMA wal_checkpoint(TRUNCATE)`.pipe(Effect.asVoid),
    orElse: () => Effect.void
  })

  return { eraseKeys, checkpoint } as const
}
