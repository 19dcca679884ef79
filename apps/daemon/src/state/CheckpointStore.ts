/**
 * Source checkpoints: where each source resumes. A checkpoint is committed once per batch, only after
 * the batch's verdicts are durable (at-least-once: a crash re-reads, dedupe makes that free).
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"
import * as SqliteClient from "./SqliteClient.ts"
import { StateHealth, StateUnwritable } from "./StateHealth.ts"
import * as StateProblem from "./StateProblem.ts"

/** A stored checkpoint with when it was written. */
export interface CheckpointRow {
  readonly checkpoint: string
  readonly updatedAt: number
}

/** The checkpoints of the sources. */
export interface CheckpointStoreShape {
  /** The stored checkpoint of a source, as JSON text. */
  readonly getCheckpoint: (source: string) => Effect.Effect<Option.Option<string>, SqlError.SqlError>
  /**
   * Stores a source's checkpoint (replacing the previous one); durable (on disk with every verdict
   * recorded before it, not only committed) unless `durable` is `false`.
   */
  readonly commitCheckpoint: (
    source: string,
    checkpoint: string,
    durable?: boolean
  ) => Effect.Effect<void, SqlError.SqlError>
  /** The stored checkpoint with when it was written, for `warden source checkpoint show`. */
  readonly checkpointRow: (source: string) => Effect.Effect<Option.Option<CheckpointRow>, SqlError.SqlError>
  /** Forgets a source's checkpoint: its next start reads from where a new source would. `true` if there was one. */
  readonly resetCheckpoint: (source: string) => Effect.Effect<boolean, SqlError.SqlError>
  /**
   * Whether the store accepts a write right now (readiness): not while it is down (StateHealth: a write
   * of the daemon failed for a full disk or a lost server, and has not worked since), and not when a
   * probe statement fails (a database that does not answer).
   */
  readonly writable: Effect.Effect<void, SqlError.SqlError | StateUnwritable>
}

const Row = Schema.Struct({ checkpoint: Schema.String, updated_at: Rows.Int })
const decodeRows = Rows.decode("warden_checkpoints", Row)

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const health = yield* StateHealth
  // Changes no row: it answers whether the database answers, not whether a write would fit (on a full
  // disk it succeeds), which is what the health's record of the daemon's real writes says.
  const probe = sql`UPDATE warden_checkpoints SET updated_at = updated_at WHERE source = ''`.pipe(Effect.asVoid)

  const checkpointRow = Effect.fn("CheckpointStore.checkpointRow")(function* (source: string) {
    const rows = yield* decodeRows(
      yield* sql`SELECT checkpoint, updated_at FROM warden_checkpoints WHERE source = ${source}`
    )
    return Option.map(Option.fromNullishOr(rows[0]), (r) => ({ checkpoint: r.checkpoint, updatedAt: r.updated_at }))
  })

  return CheckpointStore.of({
    getCheckpoint: (source) =>
      Effect.map(
        checkpointRow(source),
        Option.map((r) => r.checkpoint)
      ).pipe(Effect.withSpan("CheckpointStore.getCheckpoint")),
    // Durable (an fsync on SQLite's group commit): the verdicts recorded before it are on disk with it.
    commitCheckpoint: Effect.fn("CheckpointStore.commitCheckpoint")(function* (
      source: string,
      checkpoint: string,
      durable = true
    ) {
      const write = sql`INSERT INTO warden_checkpoints (source, checkpoint, updated_at) VALUES (${source}, ${checkpoint}, ${yield* Clock.currentTimeMillis})
          ON CONFLICT (source) DO UPDATE SET checkpoint = excluded.checkpoint, updated_at = excluded.updated_at`
      yield* durable ? SqliteClient.durable(sql, write) : write
    }),
    checkpointRow,
    resetCheckpoint: Effect.fn("CheckpointStore.resetCheckpoint")(function* (source: string) {
      const rows = yield* sql`DELETE FROM warden_checkpoints WHERE source = ${source} RETURNING source`
      return rows.length > 0
    }),
    writable: Effect.suspend((): Effect.Effect<void, SqlError.SqlError | StateUnwritable> => {
      const problem = health.problem()
      if (problem !== undefined) return Effect.fail(new StateUnwritable({ problem: problem.text }))
      // A probe that fails for the store's own problem (the server gone) names it the outage's way.
      return Effect.catch(probe, (error) => {
        const found = StateProblem.find(error, health.setting)
        return Effect.fail(found === undefined ? error : new StateUnwritable({ problem: found.text }))
      })
    })
  })
})

/** The checkpoints of the sources. */
export class CheckpointStore extends Context.Service<CheckpointStore, CheckpointStoreShape>()(
  "@warden/daemon/CheckpointStore"
) {
  /** On the (migrated) `SqlClient` and the StateHealth in context. */
  static readonly layer = Layer.effect(CheckpointStore, make)
}
