/**
 * Analysed item versions with the exact request sent: what dedupe compares with, what feedback quotes,
 * what re-analysis picks up. A batch's versions are written with their outbox rows and actions in one
 * transaction ({@link ItemStoreShape.recordItems}, ItemRecording.ts).
 */
import { Array as Arr, Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { LatestVersion, Reanalysable } from "../domain/ItemVersion.ts"
import { Verdict } from "../domain/Verdict.ts"
import { AuthorStore } from "./AuthorStore.ts"
import * as Rows from "./internal/Rows.ts"
import { StrikeStore } from "./StrikeStore.ts"
import * as ItemRecording from "./ItemRecording.ts"
import type { AuthorHistory, AuthorRead, RecordEntry } from "./ItemRecording.ts"
import { WriteSignals } from "./WriteSignals.ts"

// The record transaction's types, where its callers have always found them.
export type { AuthorHistory, AuthorRead, RecordEntry }

/** A stored item version, as feedback, signals and the admin API read it back. */
export const StoredItem = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Rows.Int,
  status: Schema.String,
  endpoint: Rows.Text,
  request: Rows.Text,
  verdict: Schema.NullOr(Schema.fromJsonString(Verdict)),
  /** The source event (or, once erased, what Erasure leaves of it). */
  event: Schema.fromJsonString(Schema.Unknown),
  erased_at: Schema.optionalKey(Rows.Text),
  created_at: Rows.Int,
  /** The rule that matched (0011; absent on a state before it). */
  rule: Schema.optionalKey(Rows.Text),
  author_key: Schema.optionalKey(Rows.Text)
})
/** @see {@link StoredItem} */
export type StoredItem = typeof StoredItem.Type

/** A version waiting for a real verdict, with its source event (JSON text). */
export interface UnanalysedItem {
  readonly reference: string
  readonly version: number
  readonly event: string
}

/** Item versions. */
export interface ItemStoreShape {
  /** The newest recorded version of a reference. */
  readonly latestVersion: (
    source: string,
    reference: string
  ) => Effect.Effect<Option.Option<LatestVersion>, SqlError.SqlError>
  /**
   * The newest recorded version of each reference (one query per 500 references): what the batch
   * processor needs to dedupe a whole round at once.
   */
  readonly latestVersions: (
    source: string,
    references: ReadonlyArray<string>
  ) => Effect.Effect<Map<string, LatestVersion>, SqlError.SqlError>
  /**
   * Records item versions and queues each for its sinks, all in one transaction (one commit for a
   * whole round of a batch). A version recorded before (a redelivery) is left as it is, and nothing
   * is queued for it again: its entry in the result is `false`.
   */
  readonly recordItems: (entries: ReadonlyArray<RecordEntry>) => Effect.Effect<Array<boolean>, SqlError.SqlError>
  /**
   * {@link ItemStoreShape.recordItems} whose entries are decided inside the transaction, with what it
   * reads of the round's authors first (`read`): the policy's author conditions see every item and
   * strike committed before, and nothing can commit in between on SQLite (one writer). Returns the
   * entries decided and which were recorded for the first time.
   */
  readonly recordDecided: (
    read: AuthorRead,
    decide: (history: AuthorHistory) => ReadonlyArray<RecordEntry>
  ) => Effect.Effect<
    { readonly entries: ReadonlyArray<RecordEntry>; readonly inserted: Array<boolean> },
    SqlError.SqlError
  >
  /** The stored version of an item (the latest when `version` is undefined). */
  readonly item: (
    source: string | undefined,
    reference: string,
    version: number | undefined
  ) => Effect.Effect<Option.Option<StoredItem>, SqlError.SqlError>
  /**
   * Several stored item versions at once (a page of the review queue, an author's history), by
   * `source\u001freference\u001fversion`, with the newest version of each item (`latest`, by
   * `source\u001freference`): one statement per 200.
   */
  readonly versionsOf: (
    keys: ReadonlyArray<{ readonly source: string; readonly reference: string; readonly version: number }>
  ) => Effect.Effect<
    { readonly rows: ReadonlyMap<string, StoredItem>; readonly latest: ReadonlyMap<string, number> },
    SqlError.SqlError
  >
  /** The platform deleted the item: its versions are marked, not removed. */
  readonly markDeleted: (source: string, reference: string) => Effect.Effect<void, SqlError.SqlError>
  /**
   * Items waiting for a real verdict: recorded "unanalysed" (API was down, failure mode allow/reject),
   * or asked to be analysed again by an operator (`warden reanalyse`). Only of the content `kinds` the
   * source analyses: a version of a kind it no longer analyses would be skipped at every sweep, and
   * the oldest 100 of those would hold back every other.
   */
  readonly unanalysed: (
    source: string,
    kinds: ReadonlyArray<string>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<UnanalysedItem>, SqlError.SqlError>
  /**
   * Asks for the latest version of every item with `status` (of one source, or all) to be analysed
   * again; returns how many were queued. With `emptyVerdicts`, `unrecognised` also takes items recorded
   * `analysed` with an empty verdict: what a daemon before the `unrecognised` outcome stored for an
   * answer without one (`warden reanalyse` does; the automatic re-queue at start does not).
   */
  readonly requestReanalysis: (
    status: Reanalysable,
    source: string | undefined,
    emptyVerdicts?: boolean
  ) => Effect.Effect<number, SqlError.SqlError>
  /** The sources that recorded a reference (more than one: the reference alone is ambiguous). */
  readonly sourcesOf: (reference: string) => Effect.Effect<ReadonlyArray<string>, SqlError.SqlError>
}

const LatestRow = Schema.Struct({
  reference: Schema.String,
  version: Rows.Int,
  content_hash: Schema.String,
  status: Schema.String,
  requested: Schema.NullOr(Rows.Int)
})
const decodeLatest = Rows.decode("warden_items", LatestRow)
const decodeItems = Rows.decode("warden_items", StoredItem)
const decodeKeys = Rows.decode(
  "warden_items",
  Schema.Struct({ source: Schema.String, reference: Schema.String, version: Rows.Int })
)
const decodeUnanalysed = Rows.decode(
  "warden_items",
  Schema.Struct({ reference: Schema.String, version: Rows.Int, event: Schema.String })
)
const decodeSources = Rows.decode("warden_items", Schema.Struct({ source: Schema.String }))

/**
 * The re-analysis sweep's read (every 5 s per source): the newest versions without a verdict, oldest
 * first, and those an operator asked for (`warden_reanalyse`). Two index-led parts: the first walks
 * the (source, status, created_at) index from the oldest `unanalysed` entry and stops at `limit`; the
 * second seeks each request's version by the table's key (a row-value `IN`: as a join, SQLite's
 * planner walked the source's versions instead). As one `status = ... OR EXISTS (request)` condition
 * it read every version of the source on each sweep: 4.6 ms at 4,800 versions, so ~1 s at 1,000,000,
 * every 5 s, on the daemon's thread (SQLite). Exported for the query-plan test.
 */
export const unanalysedStatement = (
  sql: SqlClient.SqlClient,
  source: string,
  kinds: ReadonlyArray<string>,
  limit: number
) =>
  sql`SELECT reference, version, event FROM (
    SELECT * FROM (SELECT i.reference, i.version, i.event, i.created_at FROM warden_items i
      WHERE i.source = ${source} AND i.status = 'unanalysed' AND i.content_type IN ${sql.in(kinds)}
      AND i.erased_at IS NULL AND NOT EXISTS (
        SELECT 1 FROM warden_items j WHERE j.source = i.source AND j.reference = i.reference AND j.version > i.version)
      ORDER BY i.created_at LIMIT ${limit}) AS waiting
    UNION ALL
    SELECT * FROM (SELECT i.reference, i.version, i.event, i.created_at FROM warden_items i
      WHERE (i.reference, i.source, i.version) IN (
        SELECT r.reference, r.source, r.version FROM warden_reanalyse r WHERE r.source = ${source})
      AND i.status <> 'unanalysed' AND i.content_type IN ${sql.in(kinds)} AND i.erased_at IS NULL AND NOT EXISTS (
        SELECT 1 FROM warden_items j WHERE j.source = i.source AND j.reference = i.reference AND j.version > i.version)
      LIMIT ${limit}) AS requested
  ) AS sweep ORDER BY created_at LIMIT ${limit}`

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const signals = yield* WriteSignals
  const authors = yield* AuthorStore
  const strikes = yield* StrikeStore

  const latestVersions = Effect.fn("ItemStore.latestVersions")(function* (
    source: string,
    references: ReadonlyArray<string>
  ) {
    const out = new Map<string, LatestVersion>()
    const unique = [...new Set(references)]
    for (let i = 0; i < unique.length; i += 500) {
      const chunk = unique.slice(i, i + 500)
      const rows = yield* decodeLatest(
        yield* sql`SELECT i.reference, i.version, i.content_hash, i.status, r.version AS requested FROM warden_items i
          LEFT JOIN warden_reanalyse r ON r.source = i.source AND r.reference = i.reference
          WHERE i.source = ${source} AND ${sql.in("i.reference", chunk)}`
      )
      for (const row of rows) {
        const known = out.get(row.reference)
        if (known === undefined || known.version < row.version) {
          out.set(row.reference, {
            version: row.version,
            contentHash: row.content_hash,
            status: row.status,
            reanalyse: row.requested !== null && row.requested >= row.version
          })
        }
      }
    }
    return out
  })

  const versionsOf = Effect.fn("ItemStore.versionsOf")(function* (
    keys: ReadonlyArray<{ readonly source: string; readonly reference: string; readonly version: number }>
  ) {
    const rows = new Map<string, StoredItem>()
    const latest = new Map<string, number>()
    const items = [...new Map(keys.map((k) => [`${k.source}\u001f${k.reference}`, k])).values()]
    const wanted = new Set(keys.map((k) => `${k.source}\u001f${k.reference}\u001f${k.version}`))
    for (let i = 0; i < items.length; i += 200) {
      const chunk = items.slice(i, i + 200)
      const found = yield* decodeItems(
        yield* sql`SELECT * FROM warden_items WHERE ${sql.or(
          chunk.map((c) => sql`(reference = ${c.reference} AND source = ${c.source})`)
        )}`
      )
      for (const row of found) {
        const item = `${row.source}\u001f${row.reference}`
        latest.set(item, Math.max(latest.get(item) ?? 0, row.version))
        const key = `${item}\u001f${row.version}`
        if (wanted.has(key)) rows.set(key, row)
      }
    }
    return { rows, latest } as const
  })

  const { recordItems, recordDecided } = ItemRecording.make(sql, signals, authors, strikes)

  return ItemStore.of({
    versionsOf,
    latestVersion: (source, reference) =>
      Effect.map(latestVersions(source, [reference]), (found) => Option.fromNullishOr(found.get(reference))),
    latestVersions,
    recordItems,
    recordDecided,
    item: Effect.fn("ItemStore.item")(function* (
      source: string | undefined,
      reference: string,
      version: number | undefined
    ) {
      const rows = yield* decodeItems(
        yield* sql`SELECT * FROM warden_items WHERE reference = ${reference}
          ${source === undefined ? sql`` : sql`AND source = ${source}`}
          ${version === undefined ? sql`` : sql`AND version = ${version}`}
          ORDER BY version DESC LIMIT 1`
      )
      return Option.fromNullishOr(rows[0])
    }),
    markDeleted: Effect.fn("ItemStore.markDeleted")(function* (source: string, reference: string) {
      yield* sql`UPDATE warden_items SET deleted_at = ${new Date().toISOString()}
        WHERE source = ${source} AND reference = ${reference} AND deleted_at IS NULL`
    }),
    unanalysed: Effect.fn("ItemStore.unanalysed")(function* (
      source: string,
      kinds: ReadonlyArray<string>,
      limit: number
    ) {
      if (kinds.length === 0) return []
      return yield* decodeUnanalysed(yield* unanalysedStatement(sql, source, kinds, limit))
    }),
    requestReanalysis: Effect.fn("ItemStore.requestReanalysis")(
      (status: Reanalysable, source: string | undefined, emptyVerdicts = false) =>
        sql.withTransaction(
          Effect.gen(function* () {
            const rows = yield* decodeKeys(
              yield* sql`SELECT source, reference, version FROM warden_items i
                WHERE ${source === undefined ? sql`1 = 1` : sql`source = ${source}`}
                AND deleted_at IS NULL AND erased_at IS NULL
                AND (status = ${status} ${
                  status === "unrecognised" && emptyVerdicts
                    ? sql`OR (status = 'analysed' AND verdict_type IS NULL AND severity IS NULL
                        AND recommended_action IS NULL AND (classifications IS NULL OR classifications = ',,'))`
                    : sql``
                })
                AND NOT EXISTS (SELECT 1 FROM warden_items j
                  WHERE j.source = i.source AND j.reference = i.reference AND j.version > i.version)`
            )
            const now = yield* Clock.currentTimeMillis
            for (let i = 0; i < rows.length; i += 100) {
              const chunk = rows.slice(i, i + 100).map((r) => ({ ...r, requested_at: now }))
              if (Arr.isArrayNonEmpty(chunk))
                yield* sql`INSERT INTO warden_reanalyse ${sql.insert(chunk)} ON CONFLICT (source, reference)
                  DO UPDATE SET version = excluded.version, requested_at = excluded.requested_at`
            }
            return rows.length
          })
        )
    ),
    sourcesOf: Effect.fn("ItemStore.sourcesOf")(function* (reference: string) {
      const rows = yield* decodeSources(
        yield* sql`SELECT DISTINCT source FROM warden_items WHERE reference = ${reference} ORDER BY source`
      )
      return rows.map((r) => r.source)
    })
  })
})

/** Item versions. */
export class ItemStore extends Context.Service<ItemStore, ItemStoreShape>()("@warden/daemon/ItemStore") {
  /** On the (migrated) `SqlClient` in context, with the stores the record transaction reads authors from. */
  static readonly layer = Layer.effect(ItemStore, make)
}
