/**
 * The record transaction: a round's decided item versions written with their segments, outbox rows,
 * actions, review rows and strikes in one transaction, after reading what the policy needs of their
 * authors; then the pollers of what it queued are woken. Every write is idempotent (deterministic keys,
 * ON CONFLICT DO NOTHING): delivery through the cluster is at-least-once, so the same item may be
 * recorded twice and must land once. `ItemStore` serves it (`recordItems`, `recordDecided`).
 */
import { Array as Arr, Clock, Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { ActionRecord } from "../domain/Action.ts"
import type { ItemRecord } from "../domain/ItemVersion.ts"
import * as ActionStore from "./ActionStore.ts"
import type { AuthorStoreShape, RecentItem } from "./AuthorStore.ts"
import * as Rows from "./internal/Rows.ts"
import { authorOf } from "./ItemAuthor.ts"
import * as OutboxStore from "./OutboxStore.ts"
import { ofWrittenRow } from "./LatestRecord.ts"
import * as RecordedSignal from "./RecordedSignal.ts"
import * as ReviewStore from "./ReviewStore.ts"
import type { Strike, StrikeRecord, StrikeStoreShape } from "./StrikeStore.ts"
import * as StrikeRows from "./StrikeStore.ts"
import type { Queues } from "./WriteSignals.ts"

/** One item version to record, with the sinks it is queued for and the actions decided. */
export interface RecordEntry {
  readonly item: ItemRecord
  readonly sinks: ReadonlyArray<string>
  /** The verdict record queued for the sinks, as JSON text. */
  readonly payload: string
  /** The record with the content text, queued instead for the sinks whose entry says `content: true`. */
  readonly content?: { readonly sinks: ReadonlyArray<string>; readonly payload: string } | undefined
  readonly actions?: ReadonlyArray<ActionRecord> | undefined
  /** The rule that matched (`failureMode` for the failure mode's action), if any. */
  readonly rule?: string | undefined
  /** The review queue's row, when a `review: true` rule matched. */
  readonly review?: ReviewStore.ReviewRecord | undefined
  /** The strike the verdict earns its author, when the strike policy counts it. */
  readonly strike?: StrikeRecord | undefined
}

/**
 * What the record transaction reads of a round's authors before the policy decides (`when.author`):
 * their items recorded since `itemsSince`, their live strikes since `strikesSince` (each left out when
 * no rule needs it).
 */
export interface AuthorRead {
  readonly keys: ReadonlyArray<string>
  readonly itemsSince?: number | undefined
  readonly strikesSince?: number | undefined
}

/** What {@link AuthorRead} found, as of the record transaction. */
export interface AuthorHistory {
  readonly items: ReadonlyArray<RecentItem>
  readonly strikes: ReadonlyArray<Strike>
}

const itemRow = (item: ItemRecord) => {
  const v = item.verdict
  return {
    source: item.source,
    reference: item.reference,
    version: item.version,
    content_hash: item.contentHash,
    content_type: item.contentType,
    status: item.status,
    mode: item.mode,
    endpoint: item.endpoint ?? null,
    request: item.request ?? null,
    response: item.response ?? null,
    verdict: v === undefined ? null : JSON.stringify(v),
    error: item.error === undefined ? null : JSON.stringify(item.error),
    segments: Math.max(1, item.segments.length),
    event: item.event,
    verdict_type: v?.type ?? null,
    severity: v?.severity ?? null,
    recommended_action: v?.recommendedAction ?? null,
    classifications: v === undefined ? null : `,${v.classifications.join(",")},`,
    analysed_at: item.analysedAt ?? null,
    created_at: item.createdAt,
    author: ("author" in item ? item.author : authorOf(item.event)) ?? null,
    author_key: item.authorKey ?? null,
    author_name: item.authorName ?? null,
    rule: item.rule ?? null
  }
}

/** The versions the record transaction's insert returns: the ones it inserted. */
const decodeInserted = Rows.decode("warden_items", Schema.Struct({ reference: Schema.String, version: Rows.Int }))

/** The record transaction on `sql`, reading `authors` and `strikes`, ringing `signals`. */
export const make = (
  sql: SqlClient.SqlClient,
  signals: Queues,
  authors: Pick<AuthorStoreShape, "recent">,
  strikes: Pick<StrikeStoreShape, "live">
) => {
  /**
   * The record transaction's inserts begin with this. On SQLite, `OR FAIL`: a row already there is
   * still skipped (`ON CONFLICT DO NOTHING`) and any other violation (a NOT NULL) still fails the
   * statement, and so the transaction, but SQLite no longer keeps a statement journal for it: with the
   * default ABORT, a multi-row INSERT inside a transaction copies every page it changes to a temp file
   * first, so that it can undo itself alone (~5.5 KB written per item, docs/BENCHMARKS.md "The record
   * transaction without a statement journal"). Undoing the statement alone is never needed here: a
   * failed statement fails the whole transaction, which rolls back.
   */
  const insertInto = sql.onDialectOrElse({
    sqlite: () => sql.literal("INSERT OR FAIL INTO"),
    orElse: () => sql.literal("INSERT INTO")
  })

  /** Multi-row inserts, in chunks that stay far below the bound-variable limits. */
  const insertAll = (table: string, rows: ReadonlyArray<Record<string, unknown>>) =>
    Effect.gen(function* () {
      for (let i = 0; i < rows.length; i += 100) {
        const chunk = rows.slice(i, i + 100)
        if (Arr.isArrayNonEmpty(chunk))
          yield* sql`${insertInto} ${sql(table)} ${sql.insert(chunk)} ON CONFLICT DO NOTHING`
      }
    })

  /** The writes of a round's decided entries, inside the record transaction. */
  const write = (entries: ReadonlyArray<RecordEntry>) =>
    Effect.gen(function* () {
      const inserted = new Set<string>()
      const key = (reference: string, version: number) => `${reference}\u001f${version}`
      const itemRows = entries.map(({ item }) => itemRow(item))
      for (let i = 0; i < itemRows.length; i += 100) {
        const chunk = itemRows.slice(i, i + 100)
        if (!Arr.isArrayNonEmpty(chunk)) continue
        const rows = yield* decodeInserted(
          yield* sql`${insertInto} warden_items ${sql.insert(chunk)} ON CONFLICT DO NOTHING RETURNING reference, version`
        )
        for (const row of rows) inserted.add(key(row.reference, row.version))
      }
      const fresh = entries.filter(({ item }) => inserted.has(key(item.reference, item.version)))
      const now = yield* Clock.currentTimeMillis
      yield* insertAll(
        "warden_segments",
        fresh.flatMap(({ item }) =>
          item.segments.length > 1
            ? item.segments.map((s, segment) => ({
                source: item.source,
                reference: item.reference,
                version: item.version,
                segment,
                request: s.request,
                response: s.response ?? null
              }))
            : []
        )
      )
      const outbox = fresh.flatMap(({ item, sinks, payload, content }) =>
        OutboxStore.rowsOf(item, sinks, payload, content)
      )
      yield* insertAll("warden_outbox", outbox)
      const actions = fresh.flatMap(({ item, actions }) => ActionStore.rowsOf(item, actions ?? [], now))
      yield* insertAll("warden_actions", actions)
      // A newer version closes a pending review of an older one (the queue shows the item once, as it is now).
      for (const { item } of fresh) {
        if (item.version > 1)
          yield* sql`UPDATE warden_review SET state = 'superseded', decided_at = ${item.createdAt} WHERE source = ${item.source}
            AND reference = ${item.reference} AND version < ${item.version} AND kind = 'item' AND state = 'pending'`
      }
      const reviews = fresh.flatMap(({ review }) => (review === undefined ? [] : [review]))
      yield* insertAll("warden_review", ReviewStore.rowsOf(reviews))
      yield* insertAll(
        "warden_strikes",
        StrikeRows.rowsOf(fresh.flatMap(({ strike }) => (strike === undefined ? [] : [strike])))
      )
      // A newer version answers any request to analyse the item again (one statement per source).
      const bySource = new Map<string, Array<string>>()
      for (const { item } of fresh) {
        const list = bySource.get(item.source)
        if (list === undefined) bySource.set(item.source, [item.reference])
        else list.push(item.reference)
      }
      for (const [source, references] of bySource) {
        for (let i = 0; i < references.length; i += 500) {
          yield* sql`DELETE FROM warden_reanalyse WHERE source = ${source}
            AND ${sql.in("reference", references.slice(i, i + 500))}`
        }
      }
      return {
        entries,
        itemRows,
        inserted: entries.map(({ item }) => inserted.has(key(item.reference, item.version))),
        queuedOutbox: outbox.length > 0,
        queuedActions: actions.length > 0,
        queuedReviews: reviews.length > 0
      }
    })

  /**
   * The items a record transaction inserted, each with its record as written: a generator, so that a
   * transaction no check waits on (every one of a pull source) builds nothing (RecordedSignal.announce
   * returns before reading it).
   */
  function* announced(recorded: Effect.Success<ReturnType<typeof write>>) {
    for (let i = 0; i < recorded.entries.length; i++) {
      if (recorded.inserted[i] !== true) continue
      const { item } = recorded.entries[i]!
      yield [RecordedSignal.keyOf(item.source, item.reference), () => ofWrittenRow(recorded.itemRows[i])] as const
    }
  }

  /** Once committed: wake the sinks', the actions' and the review queue's pollers for what it queued, and the checks waiting on the items. */
  const rung = (recorded: Effect.Success<ReturnType<typeof write>>) =>
    Effect.sync(() => {
      if (recorded.queuedOutbox) signals.outbox.ring()
      if (recorded.queuedActions) signals.actions.ring()
      signals.recorded.announce(announced(recorded))
    })

  const recordDecided = Effect.fn("ItemStore.recordDecided")(
    (read: AuthorRead, decide: (history: AuthorHistory) => ReadonlyArray<RecordEntry>) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const items = read.itemsSince === undefined ? [] : yield* authors.recent(read.keys, read.itemsSince)
            const live = read.strikesSince === undefined ? [] : yield* strikes.live(read.keys, read.strikesSince)
            const entries = decide({ items, strikes: live })
            return yield* write(entries)
          })
        )
        .pipe(
          Effect.tap(rung),
          Effect.map((recorded) => ({ entries: recorded.entries, inserted: recorded.inserted }))
        )
  )

  const recordItems = Effect.fn("ItemStore.recordItems")((entries: ReadonlyArray<RecordEntry>) =>
    entries.length === 0
      ? Effect.succeed([] as Array<boolean>)
      : sql.withTransaction(write(entries)).pipe(
          Effect.tap(rung),
          Effect.map((recorded) => recorded.inserted)
        )
  )

  return { recordItems, recordDecided }
}
