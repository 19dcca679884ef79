/**
 * The intake of push sources (`warden_intake`, issue 39): items a client was told were accepted, kept
 * until the daemon has recorded them. A push source's stream reads them in `seq` order; once the daemon
 * committed the checkpoint past an item (its verdict recorded) the source forgets the rows up to it.
 *
 * Writes of one process are serialised (one transaction at a time, each taking every item queued while
 * the previous one committed): on PostgreSQL, concurrent transactions may commit their identity values
 * out of order, and a reader that went past seq 10 before seq 9 committed would never read 9. One
 * writer at a time keeps commit order and seq order the same; it is also a group commit, so a burst of
 * small requests costs one commit per round rather than one each. Each round is durable (on SQLite,
 * the WAL's shared fsync) before its callers are answered; the source's stream is woken as soon as the
 * round committed, and the next round commits while this one's fsync runs (SqliteClient.commitThenSync).
 */
import { Array as Arr, Clock, Context, Deferred, Effect, Exit, Layer, Queue, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"
import * as LatestRecord from "./LatestRecord.ts"
import { commitThenSync } from "./SqliteClient.ts"
import { WriteSignals } from "./WriteSignals.ts"

/** One item to keep: its source, reference, author, and its event as JSON text. */
export interface IntakeRow {
  readonly source: string
  readonly reference: string
  readonly event: string
  readonly author?: string | undefined
  readonly authorName?: string | undefined
}

/** A kept item, as read back. */
export const Intaken = Schema.Struct({ seq: Rows.Int, event: Schema.String })
/** @see {@link Intaken} */
export type Intaken = typeof Intaken.Type

const decodeIntaken = Rows.decode("warden_intake", Intaken)

/** See the module documentation. */
export interface IntakeStoreShape {
  /** Commits the rows (in order, after every row appended before); succeeds once they are durable. */
  readonly append: (rows: ReadonlyArray<IntakeRow>) => Effect.Effect<void, SqlError.SqlError>
  /** A source's rows after `seq`, oldest first, at most `limit`. */
  readonly after: (
    source: string,
    seq: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Intaken>, SqlError.SqlError>
  /** The newest recorded version of an item (`warden_items`), if any. */
  readonly latestRecord: (
    source: string,
    reference: string
  ) => Effect.Effect<ReadonlyArray<LatestRecord.LatestRecord>, SqlError.SqlError>
  /** Forgets a source's rows up to `seq` (included). */
  readonly forget: (source: string, seq: number) => Effect.Effect<void, SqlError.SqlError>
}

interface Pending {
  readonly rows: ReadonlyArray<IntakeRow>
  readonly done: Deferred.Deferred<void, SqlError.SqlError>
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const signals = yield* WriteSignals
  const queue = yield* Queue.unbounded<Pending>()

  const insert = (rows: ReadonlyArray<IntakeRow>, now: number) =>
    Effect.gen(function* () {
      for (let i = 0; i < rows.length; i += 100) {
        const chunk = rows.slice(i, i + 100).map((r) => ({
          source: r.source,
          reference: r.reference,
          event: r.event,
          author: r.author ?? null,
          author_name: r.authorName ?? null,
          received_at: now
        }))
        if (Arr.isArrayNonEmpty(chunk)) yield* sql`INSERT INTO warden_intake ${sql.insert(chunk)}`
      }
    })

  /**
   * The one writer: everything queued while the last round committed goes in the next one. A round's
   * callers wait for its fsync on their own fiber, so the next round commits meanwhile (a check's item
   * is not held behind the previous round's fsync on its way to the API).
   */
  yield* Effect.forkScoped(
    Effect.forever(
      Effect.gen(function* () {
        const round = yield* Queue.takeAll(queue)
        // Durable before the answer (a 202 survives a power loss, not only a killed process): on SQLite the
        // WAL's group fsync, off the event loop, shared with the checkpoints' (SqliteClient.durable). The
        // source's stream is woken once the rows are committed, while the fsync runs: a check's item is on
        // its way to the API meanwhile (the stream's own commits follow these in the WAL).
        const rows = round.flatMap((p) => p.rows)
        const now = yield* Clock.currentTimeMillis
        const answer = (exit: Exit.Exit<void, SqlError.SqlError>) =>
          Effect.sync(() => {
            for (const pending of round) Deferred.doneUnsafe(pending.done, exit)
          })
        const committed = yield* Effect.exit(
          commitThenSync(
            sql,
            sql.withTransaction(insert(rows, now)),
            Effect.sync(() => signals.intake.ring())
          )
        )
        if (Exit.isFailure(committed)) return yield* answer(Exit.failCause(committed.cause))
        yield* Effect.forkChild(Effect.flatMap(Effect.exit(committed.value), answer))
      })
    )
  )

  return IntakeStore.of({
    append: Effect.fn("IntakeStore.append")(function* (rows: ReadonlyArray<IntakeRow>) {
      if (rows.length === 0) return
      const done = Deferred.makeUnsafe<void, SqlError.SqlError>()
      yield* Queue.offer(queue, { rows, done })
      return yield* Deferred.await(done)
    }),
    after: Effect.fn("IntakeStore.after")(function* (source: string, seq: number, limit: number) {
      return yield* decodeIntaken(
        yield* sql`SELECT seq, event FROM warden_intake WHERE source = ${source} AND seq > ${seq}
          ORDER BY seq LIMIT ${limit}`
      )
    }),
    latestRecord: Effect.fn("IntakeStore.latestRecord")(function* (source: string, reference: string) {
      return yield* LatestRecord.decodeRows(
        yield* sql`SELECT version, content_hash, status, verdict, rule FROM warden_items
          WHERE source = ${source} AND reference = ${reference} ORDER BY version DESC LIMIT 1`
      )
    }),
    forget: Effect.fn("IntakeStore.forget")(function* (source: string, seq: number) {
      yield* sql`DELETE FROM warden_intake WHERE source = ${source} AND seq <= ${seq}`
    })
  })
})

/** The intake of push sources. */
export class IntakeStore extends Context.Service<IntakeStore, IntakeStoreShape>()("@warden/daemon/IntakeStore") {
  /** On the (migrated) `SqlClient` in context; its writer lives as long as the layer. */
  static readonly layer = Layer.effect(IntakeStore, make)
}
