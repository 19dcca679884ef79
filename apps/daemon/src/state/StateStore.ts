/**
 * The daemon's durable state on `effect/sql` (SQLite by default, PostgreSQL when shared), one store
 * per concern: item versions (ItemStore), source checkpoints (CheckpointStore), the sink outbox
 * (OutboxStore), platform actions (ActionStore), feedback (FeedbackStore), the decisions listing
 * (DecisionStore), source errors and dead-lettered events (SourceErrorStore), the review queue
 * (ReviewStore), authors (AuthorStore), strikes (StrikeStore), moderators (ModeratorStore) and the
 * audit (AuditStore).
 *
 * {@link layer} prepares the database (pragmas, migrations) once and provides every store, with the
 * store's health as its users report it (StateHealth).
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ActionStore } from "./ActionStore.ts"
import { AuditStore } from "./AuditStore.ts"
import { AuthorStore } from "./AuthorStore.ts"
import { CheckpointStore } from "./CheckpointStore.ts"
import { DecisionStore } from "./DecisionStore.ts"
import { FeedbackStore } from "./FeedbackStore.ts"
import { IntakeStore } from "./IntakeStore.ts"
import { ItemStore } from "./ItemStore.ts"
import * as Migrations from "./Migrations.ts"
import { ModeratorStore } from "./ModeratorStore.ts"
import { OutboxStore } from "./OutboxStore.ts"
import { ReviewStore } from "./ReviewStore.ts"
import { SourceErrorStore } from "./SourceErrorStore.ts"
import { StrikeStore } from "./StrikeStore.ts"
import { StateHealth } from "./StateHealth.ts"
import { WriteSignals } from "./WriteSignals.ts"

/** The connection's settings on SQLite (none elsewhere), set before any table is created. */
export const pragmas = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // SQLite waits for another process's lock (an operator's sqlite3, a backup) instead of failing: set
  // when the connection opens (SqliteClient.busyTimeoutMillis), so it covers its first statements too.
  // SQLite: let the file shrink when space is freed (purged batch messages; ClusterTables.reclaimSpace).
  // Takes effect on a new database only (this runs before any table is created); an older file keeps
  // its mode until a `VACUUM` (docs/operations.md, "Disk").
  yield* sql.onDialectOrElse({ sqlite: () => sql`PRAGMA auto_vacuum = INCREMENTAL`, orElse: () => Effect.void })
  // SQLite: zero freed cells and pages, so erased content (Erasure.ts) leaves no bytes in the file,
  // not even stale copies made by earlier page splits.
  yield* sql.onDialectOrElse({ sqlite: () => sql`PRAGMA secure_delete = ON`, orElse: () => Effect.void })
})

/** Pragmas and migrations: what runs once before any store is used. */
const prepare = Effect.andThen(pragmas, Migrations.run)

/** Every store, on the `SqlClient` in context, the database migrated on start. */
export const layer = Layer.unwrap(
  Effect.as(
    prepare,
    Layer.mergeAll(
      ActionStore.layer,
      AuditStore.layer,
      CheckpointStore.layer,
      DecisionStore.layer,
      FeedbackStore.layer,
      IntakeStore.layer,
      ItemStore.layer,
      ModeratorStore.layer,
      OutboxStore.layer,
      ReviewStore.layer,
      SourceErrorStore.layer
    ).pipe(
      // The record transaction reads the round's authors (ItemStore.recordDecided).
      Layer.provideMerge(Layer.mergeAll(AuthorStore.layer, StrikeStore.layer)),
      Layer.provideMerge(WriteSignals.layer),
      Layer.provideMerge(StateHealth.layer)
    )
  )
)
