/**
 * The state store's tables, created by `effect/sql`'s migrator. The SQL is portable between SQLite and
 * PostgreSQL (TEXT, INTEGER/BIGINT, composite keys, ON CONFLICT), so one list serves both.
 */
import { Migrator } from "effect/sql"
import {
  createActionsFeedback,
  createDecisionIndexes,
  createErasure,
  createItems,
  createOwner,
  createReanalyse,
  createSourceDeadLetters
} from "./MigrationsFirstTables.ts"
import {
  addItemAuthors,
  addItemsRule,
  indexItemsByStatus,
  indexItemsByStatusAndAge,
  keyItemsByReference
} from "./MigrationsItems.ts"
import {
  addOutboxFirstFailed,
  createAudit,
  createIntake,
  createModerators,
  createReview,
  createStrikes
} from "./MigrationsReview.ts"

/** The state store's migrations by id, in order; `run` applies the pending ones. */
export const migrations = {
  "0001_items_outbox_checkpoints": createItems,
  "0002_actions_feedback": createActionsFeedback,
  "0003_reanalyse": createReanalyse,
  "0004_source_dead_letters": createSourceDeadLetters,
  "0005_decision_indexes": createDecisionIndexes,
  "0006_erasure": createErasure,
  "0007_owner": createOwner,
  "0008_items_keyed_by_reference": keyItemsByReference,
  "0009_items_status_index": indexItemsByStatus,
  "0010_items_status_created_index": indexItemsByStatusAndAge,
  "0011_items_rule": addItemsRule,
  "0012_items_author": addItemAuthors,
  "0013_review": createReview,
  "0014_strikes": createStrikes,
  "0015_moderators": createModerators,
  "0016_audit": createAudit,
  "0017_outbox_first_failed": addOutboxFirstFailed,
  "0018_intake": createIntake
} as const

/** Runs the pending ones of `record`, recorded in `warden_migrations`. */
const migrate = (record: Partial<typeof migrations>) =>
  Migrator.make({})({ loader: Migrator.fromRecord(record), table: "warden_migrations" })

/**
 * Runs the pending migrations of the state store up to `last` (included): a state as an older daemon
 * left it, for the tests and benchmarks of a later migration.
 */
export const runUpTo = (last: keyof typeof migrations) =>
  migrate(Object.fromEntries(Object.entries(migrations).filter(([id]) => id <= last)))

/** Runs every pending migration of the state store. */
export const run = migrate(migrations)
