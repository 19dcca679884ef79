/**
 * What went wrong on the source side: errors a connector reported (`error` events) and events the
 * daemon could not take (dead-lettered with the offending field, the source goes on).
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** An event a source emitted that the daemon could not take, as recorded. */
export interface SourceDeadLetterInput {
  readonly source: string
  readonly reference: string
  /** The offending field (`reference`, `checkpoint.seq`, `content.text`). */
  readonly field: string
  readonly reason: string
  /** The event as JSON-ish text (BigInts written as strings), cut at 4 KiB. */
  readonly event: string
}

/** A dead-lettered source event, as the admin API shows it. */
export interface SourceDeadLetter extends SourceDeadLetterInput {
  readonly count: number
  readonly firstAt: string
  readonly lastAt: string
}

/** Source errors and dead-lettered source events. */
export interface SourceErrorStoreShape {
  /** Records an `error` event of a source. */
  readonly recordSourceError: (
    source: string,
    reason: string,
    message: string
  ) => Effect.Effect<void, SqlError.SqlError>
  /**
   * Records an event a source emitted that the daemon cannot take; the same event again (after a
   * restart) bumps `count`. The reference is kept whole up to 1024 characters (it may be the problem).
   */
  readonly recordSourceDeadLetter: (letter: SourceDeadLetterInput) => Effect.Effect<void, SqlError.SqlError>
  /** The dead-lettered source events, newest first. */
  readonly sourceDeadLetters: (query: {
    readonly source?: string | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<SourceDeadLetter>, SqlError.SqlError>
}

const Row = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  field: Schema.String,
  reason: Schema.String,
  event: Schema.String,
  count: Rows.Int,
  first_at: Rows.Int,
  last_at: Rows.Int
})
const decodeRows = Rows.decode("warden_source_dead_letters", Row)

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return SourceErrorStore.of({
    recordSourceError: Effect.fn("SourceErrorStore.recordSourceError")(function* (
      source: string,
      reason: string,
      message: string
    ) {
      yield* sql`INSERT INTO warden_source_errors ${sql.insert({ source, at: yield* Clock.currentTimeMillis, reason, message })}`
    }),
    recordSourceDeadLetter: Effect.fn("SourceErrorStore.recordSourceDeadLetter")(function* (
      letter: SourceDeadLetterInput
    ) {
      const now = yield* Clock.currentTimeMillis
      const row = {
        source: letter.source,
        reference: letter.reference.slice(0, 1024),
        field: letter.field,
        reason: letter.reason,
        event: letter.event,
        count: 1,
        first_at: now,
        last_at: now
      }
      yield* sql`INSERT INTO warden_source_dead_letters ${sql.insert(row)}
        ON CONFLICT (source, reference, field) DO UPDATE SET count = warden_source_dead_letters.count + 1,
          reason = excluded.reason, event = excluded.event, last_at = excluded.last_at`
    }),
    sourceDeadLetters: Effect.fn("SourceErrorStore.sourceDeadLetters")(function* (query: {
      readonly source?: string | undefined
      readonly limit: number
    }) {
      const rows = yield* decodeRows(
        yield* sql`SELECT source, reference, field, reason, event, count, first_at, last_at
          FROM warden_source_dead_letters
          ${query.source === undefined ? sql`` : sql`WHERE source = ${query.source}`}
          ORDER BY last_at DESC, source, reference LIMIT ${query.limit}`
      )
      return rows.map(
        (r): SourceDeadLetter => ({
          source: r.source,
          reference: r.reference,
          field: r.field,
          reason: r.reason,
          event: r.event,
          count: r.count,
          firstAt: new Date(r.first_at).toISOString(),
          lastAt: new Date(r.last_at).toISOString()
        })
      )
    })
  })
})

/** Source errors and dead-lettered source events. */
export class SourceErrorStore extends Context.Service<SourceErrorStore, SourceErrorStoreShape>()(
  "@warden/daemon/SourceErrorStore"
) {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(SourceErrorStore, make)
}
