/**
 * The sink outbox: each verdict record queued for each of its sinks, written in the same transaction
 * as its item version (ItemStore.recordItems), deleted once the sink has it; after the sink's last
 * attempt a row moves to the dead letters.
 */
import { Context, Effect, Layer, type Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** A row of the sink outbox. */
export const OutboxRow = Schema.Struct({
  id: Schema.String,
  sink: Schema.String,
  source: Schema.String,
  reference: Schema.String,
  version: Rows.Int,
  /** The verdict record, as JSON text. */
  payload: Schema.String,
  attempts: Rows.Int,
  /** When its first delivery failed (epoch millis); null until then, and in rows of an older daemon. */
  first_failed_at: Schema.NullOr(Rows.Int)
})
/** @see {@link OutboxRow} */
export type OutboxRow = typeof OutboxRow.Type

/** The key of a queued verdict: one row per sink and item version. */
const outboxId = (sink: string, source: string, reference: string, version: number) =>
  `${sink}\u001f${source}\u001f${reference}\u001f${version}`

/**
 * The outbox rows of one item version, one per sink (what ItemStore.recordItems inserts); the sinks
 * of `content` get its payload (the record with the text), the others `payload`.
 */
export const rowsOf = (
  item: { readonly source: string; readonly reference: string; readonly version: number; readonly createdAt: number },
  sinks: ReadonlyArray<string>,
  payload: string,
  content?: { readonly sinks: ReadonlyArray<string>; readonly payload: string } | undefined
) =>
  sinks.map((sink) => ({
    id: outboxId(sink, item.source, item.reference, item.version),
    sink,
    source: item.source,
    reference: item.reference,
    version: item.version,
    payload: content?.sinks.includes(sink) ? content.payload : payload,
    created_at: item.createdAt,
    attempts: 0,
    next_attempt_at: 0
  }))

/** The sink outbox. */
export interface OutboxStoreShape {
  /** The oldest undelivered rows of a sink that are due, in order. */
  readonly pendingOutbox: (sink: string, limit: number) => Effect.Effect<ReadonlyArray<OutboxRow>, SqlError.SqlError>
  /** The sink has these rows: forget them. */
  readonly markDelivered: (ids: ReadonlyArray<string>) => Effect.Effect<void, SqlError.SqlError>
  /**
   * A delivery failed: try again at `retryAt` (epoch milliseconds). `failedAt` is kept as the row's
   * first failure when it has none yet (its retry window starts there).
   */
  readonly markAttemptFailed: (
    id: string,
    error: string,
    retryAt: number,
    failedAt: number
  ) => Effect.Effect<void, SqlError.SqlError>
  /** The sink's last attempt failed: the row moves to the dead letters. */
  readonly deadLetter: (row: OutboxRow, error: string) => Effect.Effect<void, SqlError.SqlError>
  /** Verdicts waiting for one sink (due or waiting to be retried), and when the oldest was queued (epoch millis). */
  readonly sinkBacklog: (
    sink: string
  ) => Effect.Effect<{ readonly pending: number; readonly oldest: number | undefined }, SqlError.SqlError>
  /**
   * The sinks with deliveries that failed and wait to be retried: since when (the earliest first
   * failure still queued) and how many. What `/readyz` and the pipeline page call a failing sink.
   */
  readonly failing: Effect.Effect<ReadonlyArray<Failing>, SqlError.SqlError>
  /** When the sink's soonest retry that is not yet due falls due (epoch milliseconds), if it has one. */
  readonly nextRetryAt: (sink: string) => Effect.Effect<Option.Option<number>, SqlError.SqlError>
}

/** A sink whose deliveries fail: since when (epoch millis) and how many records wait for a retry. */
export interface Failing {
  readonly sink: string
  readonly since: number
  readonly records: number
}

const decodeRows = Rows.decode("warden_outbox", OutboxRow)
const decodeBacklog = Rows.decode("warden_outbox", Schema.Struct({ n: Rows.Int, oldest: Schema.NullOr(Rows.Int) }))
const decodeFailing = Rows.decode("warden_outbox", Schema.Struct({ sink: Schema.String, since: Rows.Int, n: Rows.Int }))
const decodeSoonest = Rows.decodeMin("warden_outbox")

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return OutboxStore.of({
    pendingOutbox: Effect.fn("OutboxStore.pendingOutbox")(function* (sink: string, limit: number) {
      return yield* decodeRows(
        yield* sql`SELECT id, sink, source, reference, version, payload, attempts, first_failed_at FROM warden_outbox
          WHERE sink = ${sink} AND next_attempt_at <= ${Date.now()}
          ORDER BY created_at, id LIMIT ${limit}`
      )
    }),
    markDelivered: Effect.fn("OutboxStore.markDelivered")(function* (ids: ReadonlyArray<string>) {
      if (ids.length > 0) yield* sql`DELETE FROM warden_outbox WHERE ${sql.in("id", ids)}`
    }),
    markAttemptFailed: Effect.fn("OutboxStore.markAttemptFailed")(function* (
      id: string,
      error: string,
      retryAt: number,
      failedAt: number
    ) {
      yield* sql`UPDATE warden_outbox SET attempts = attempts + 1, last_error = ${error}, next_attempt_at = ${retryAt},
          first_failed_at = COALESCE(first_failed_at, ${failedAt})
        WHERE id = ${id}`
    }),
    deadLetter: Effect.fn("OutboxStore.deadLetter")((row: OutboxRow, error: string) =>
      sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`INSERT INTO warden_dead_letters ${sql.insert({
            id: row.id,
            sink: row.sink,
            source: row.source,
            reference: row.reference,
            version: row.version,
            payload: row.payload,
            attempts: row.attempts + 1,
            last_error: error,
            failed_at: Date.now()
          })} ON CONFLICT DO NOTHING`
          yield* sql`DELETE FROM warden_outbox WHERE id = ${row.id}`
        })
      )
    ),
    sinkBacklog: Effect.fn("OutboxStore.sinkBacklog")(function* (sink: string) {
      const [row] = yield* decodeBacklog(
        yield* sql`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM warden_outbox WHERE sink = ${sink}`
      )
      return { pending: row?.n ?? 0, oldest: row?.oldest ?? undefined }
    }),
    failing: Effect.map(
      Effect.flatMap(
        sql`SELECT sink, MIN(first_failed_at) AS since, COUNT(*) AS n FROM warden_outbox
          WHERE first_failed_at IS NOT NULL GROUP BY sink ORDER BY sink`,
        decodeFailing
      ),
      (rows) => rows.map((r) => ({ sink: r.sink, since: r.since, records: r.n }))
    ),
    nextRetryAt: Effect.fn("OutboxStore.nextRetryAt")(function* (sink: string) {
      return yield* decodeSoonest(
        yield* sql`SELECT MIN(next_attempt_at) AS at FROM warden_outbox WHERE sink = ${sink} AND next_attempt_at > ${Date.now()}`
      )
    })
  })
})

/** The sink outbox. */
export class OutboxStore extends Context.Service<OutboxStore, OutboxStoreShape>()("@warden/daemon/OutboxStore") {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(OutboxStore, make)
}
