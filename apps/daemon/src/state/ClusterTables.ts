/**
 * Keeps effect/cluster's tables (`cluster_messages`, `cluster_replies`) from growing with the work done.
 *
 * A persisted message and its reply are what make accepted work survive a crash; once the message is
 * processed and its sender has the reply, they are history: the verdicts are in the state store's
 * own tables. effect/cluster never deletes them (issue 20: 1 GB of processed `ItemBatch` messages in 8
 * minutes), so the pipeline purges them. `MessageStorage.clearAddress` is not usable for this: it
 * deletes an entity's unprocessed messages too, and a source always has batches in flight.
 */
import { Effect, Option } from "effect"
import { MachineId, Snowflake } from "effect/cluster"
import { SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** The entity types whose messages the pipeline purges (engine/ItemBatch.ts: `ItemBatch`, `PushItemBatch`). */
export const entityTypes = ["ItemBatch", "PushItemBatch"]

/**
 * Deletes the processed messages (and their replies) of the given entities that were sent before
 * `sentBefore` (epoch millis). The caller passes the start of its oldest send still waiting for a
 * reply, so no sender ever loses a reply it waits for; a message not processed yet is never touched.
 * Returns how many messages were deleted.
 */
export const purgeProcessed = Effect.fn("ClusterTables.purgeProcessed")(function* (
  entityIds: ReadonlyArray<string>,
  sentBefore: number
) {
  const sql = yield* SqlClient.SqlClient
  if (entityIds.length === 0) return 0
  // Message ids are snowflakes: their high bits are the send time, so `id < bound` selects by age.
  const bound = sql.literal(
    String(Snowflake.make({ timestamp: sentBefore, machineId: MachineId.make(0), sequence: 0 }))
  )
  const selected = sql`${sql.in("entity_type", entityTypes)} AND ${sql.in("entity_id", entityIds)} AND processed = ${sql.onDialectOrElse(
    { pg: () => sql.literal("TRUE"), orElse: () => sql.literal("1") }
  )} AND id < ${bound}`
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM cluster_messages WHERE ${selected})`
      const deleted = yield* sql<{ one: number }>`DELETE FROM cluster_messages WHERE ${selected} RETURNING 1 AS one`
      return deleted.length
    })
  )
})

const decodeFreePages = Rows.decodePragma("freelist_count")

/**
 * SQLite only: gives free pages back to the file system once more than `thresholdPages` are free
 * (needs `auto_vacuum = INCREMENTAL`, set when the database is created; on an older file a one-time
 * `VACUUM` switches it, see docs/operations.md "Disk"). Below the threshold the pages stay free for the
 * next batches, which is cheaper than shrinking and growing the file again.
 */
export const reclaimSpace = (thresholdPages = 4096) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({
      sqlite: () =>
        Effect.gen(function* () {
          const free = Option.getOrElse(yield* decodeFreePages(yield* sql`PRAGMA freelist_count`), () => 0)
          if (free > thresholdPages) yield* sql.unsafe(`PRAGMA incremental_vacuum(${free - thresholdPages / 4})`)
        }),
      orElse: () => Effect.void
    })
  }).pipe(Effect.withSpan("ClusterTables.reclaimSpace"))
