/**
 * What follows a source's batch once every partition acknowledged it, in stream order: its checkpoint
 * stored, acknowledged to the source (a message bus), and the batch messages the cluster has processed
 * purged. At-least-once: a crash before the commit reads the batch again, and the dedupe makes that free.
 */
import { Checkpoint, type Source } from "@warden/connector"
import { Cause, Clock, Effect, Metric } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import * as ClusterTables from "../state/ClusterTables.ts"
import type { CheckpointStoreShape } from "../state/CheckpointStore.ts"
import * as RepeatedWarnings from "../state/RepeatedWarnings.ts"
import * as StateHealth from "../state/StateHealth.ts"
import * as Metrics from "./Metrics.ts"

/** How often the purge also gives free pages back to the file system (SQLite). */
export const RECLAIM_EVERY_MILLIS = 60_000

/** The cluster tables' statements the purge runs (ClusterTables.ts; a test gives its own). */
export interface Tables<R> {
  readonly purgeProcessed: (entityIds: ReadonlyArray<string>, sentBefore: number) => Effect.Effect<number, unknown, R>
  readonly reclaimSpace: () => Effect.Effect<void, unknown, R>
}

/** A source's commits. */
export interface CheckpointCommit<R> {
  /**
   * Stores the checkpoint; one warning when it breaks the connector contract's size. Retried while
   * the state store is down (a failed commit used to fail the source's stream, which read its batches
   * again from the previous checkpoint once restarted).
   */
  readonly store: (checkpoint: Checkpoint.Checkpoint) => Effect.Effect<void, SqlError.SqlError>
  /**
   * Tells `source` that every event up to a committed checkpoint is recorded (Source.acknowledge); one
   * per start of the source. A failure is logged once per start and never stops the source: what was
   * not acknowledged is delivered again, and the dedupe makes that free.
   */
  readonly acknowledger: (
    source: Pick<Source.Source, "acknowledge">
  ) => (checkpoint: Checkpoint.Checkpoint) => Effect.Effect<void>
  /**
   * Deletes this source's processed batch messages and replies after each commit (two statements on
   * a handful of rows; once a minute when its batches are not persisted): everything sent before the
   * oldest send still in flight has been acknowledged, and its verdicts are durable. Never fails: the
   * next commit purges again.
   */
  readonly purge: Effect.Effect<void, never, R>
}

/** The commits of source `id`, whose sends still in flight start at `oldestInFlight` at the earliest. */
export const make = Effect.fn("CheckpointCommit.make")(function* <R = never>(options: {
  readonly id: string
  readonly partitions: number
  readonly checkpoints: Pick<CheckpointStoreShape, "commitCheckpoint">
  readonly oldestInFlight: Effect.Effect<number>
  readonly tables: Tables<R>
  /**
   * Where the source's items wait until their batch is committed. `upstream` (a pull source: a feed, a
   * gateway, a bus), which may not give them again: its batch messages are persisted, each commit
   * purges what it acknowledged, and the checkpoint is durable before the source is told (a bus then
   * forgets). `intake` (a push source: the state's own intake, ItemBatch.ts `ProcessVolatile`): no
   * batch message is persisted, so the purge runs at the first commit and then once a minute (for the
   * messages an older daemon persisted), and the checkpoint is committed without an fsync of its own. A
   * power loss that takes it takes the intake's forgetting with it (one WAL, in order), so the items
   * are read again, and the dedupe finds what was recorded.
   */
  readonly itemsWaitIn: "upstream" | "intake"
}) {
  const { id, checkpoints, tables } = options
  const fromIntake = options.itemsWaitIn === "intake"
  const health = yield* StateHealth.StateHealth
  /** This source's writes, as the state store's health counts them (StateHealth). */
  const writes = StateHealth.sourceWrites(id)
  const warnings = RepeatedWarnings.make()
  // Purged: this source's partitions, and at least the 4 an older daemon spread SQLite batches over
  // (their messages left at an upgrade are processed after it, then purged like the others).
  const entityIds = Array.from({ length: Math.max(4, options.partitions) }, (_, p) => `${id}/${p}`)
  let lastReclaim = yield* Clock.currentTimeMillis
  let lastPurge = Number.NEGATIVE_INFINITY
  let warnedLarge = false

  const store = (checkpoint: Checkpoint.Checkpoint) =>
    Effect.suspend(() => {
      const text = Checkpoint.toJsonText(checkpoint)
      const commitIt = checkpoints.commitCheckpoint(id, text, !fromIntake).pipe(health.untilWritten(writes))
      if (warnedLarge || text.length <= Checkpoint.maxBytes) return commitIt
      warnedLarge = true
      return Effect.logWarning(
        `checkpoint of ${text.length} bytes, above the connector contract's ${Checkpoint.maxBytes}: it is written at every batch (see docs/connectors.md)`
      ).pipe(Effect.annotateLogs({ source: id }), Effect.andThen(commitIt))
    })

  const acknowledger = (source: Pick<Source.Source, "acknowledge">) => {
    let failed = false
    return (checkpoint: Checkpoint.Checkpoint): Effect.Effect<void> =>
      source.acknowledge === undefined
        ? Effect.void
        : source.acknowledge(checkpoint).pipe(
            Effect.catchCause((cause) => {
              if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
              if (failed) return Effect.void
              failed = true
              return Effect.logWarning("the source's acknowledge failed (logged once)", cause)
            })
          )
  }

  const purge = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    if (fromIntake && now - lastPurge < RECLAIM_EVERY_MILLIS) return
    lastPurge = now
    const deleted = yield* tables.purgeProcessed(entityIds, yield* options.oldestInFlight)
    if (deleted > 0) yield* Metric.update(Metric.withAttributes(Metrics.messagesPurged, { source: id }), deleted)
    if (now - lastReclaim >= RECLAIM_EVERY_MILLIS) {
      lastReclaim = now
      yield* tables.reclaimSpace()
    }
  }).pipe(
    // Not retried until it works (the next commit purges again): a problem of the store is for the
    // writes that are (the batches, the checkpoints) to report.
    Effect.catchCause((cause) =>
      health.isProblem(cause)
        ? Effect.void
        : warnings.log("purge", "Warn", "purging processed batch messages failed", cause)
    )
  )

  return { store, acknowledger, purge } satisfies CheckpointCommit<R>
})

/** What the state store's cluster tables need. */
export type TablesServices = SqlClient.SqlClient

/** The cluster tables of the state store. */
export const clusterTables: Tables<TablesServices> = {
  purgeProcessed: ClusterTables.purgeProcessed,
  reclaimSpace: () => ClusterTables.reclaimSpace()
}
