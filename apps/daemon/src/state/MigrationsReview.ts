/**
 * The review, moderation and push-intake tables (migrations 0013-0018): the review queue, strikes,
 * moderators, the audit, the outbox's first failure and the push sources' intake. Portable SQL
 * (Migrations.ts).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { hasColumn } from "./MigrationColumns.ts"

/**
 * The review queue (issue 36): one row per item version a `review: true` rule matched (`kind` item) or
 * an appeal filed (`kind` appeal), pending until a moderator decides. The queue is read most severe
 * then oldest; decided rows newest first. A newer version of the item closes a pending row of an older
 * one as `superseded` (the queue shows one row per item).
 */
export const createReview = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS warden_review (
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    kind TEXT NOT NULL,
    state TEXT NOT NULL,
    rule TEXT,
    verdict_type TEXT,
    severity_rank INTEGER NOT NULL DEFAULT 0,
    author_key TEXT,
    created_at BIGINT NOT NULL,
    decided_at BIGINT,
    decided_by TEXT,
    note TEXT,
    classifications TEXT,
    statement TEXT,
    PRIMARY KEY (source, reference, version, kind)
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_review_queue
    ON warden_review (state, severity_rank DESC, created_at, source, reference)`
  // Decided rows newest first (a superseded one has `decided_at` too, and no `decided_by`); the review
  // stream reads rows added and decided since its last look by these two.
  yield* sql`CREATE INDEX IF NOT EXISTS warden_review_decided ON warden_review (decided_at DESC, source, reference)`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_review_created ON warden_review (created_at)`
})

/**
 * Strikes against authors (issue 37): at most one per item; a moderator's rejection upgrades it, an
 * approval or an upheld appeal removes it (kept, with who and why, for the author's history).
 */
export const createStrikes = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS warden_strikes (
    author_key TEXT NOT NULL,
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    kind TEXT NOT NULL,
    weight REAL NOT NULL,
    at BIGINT NOT NULL,
    removed_at BIGINT,
    removed_by TEXT,
    removed_reason TEXT,
    PRIMARY KEY (author_key, source, reference)
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_strikes_item ON warden_strikes (source, reference)`
})

/** Moderators added with `warden moderator add` (those of the config file live in memory only). */
export const createModerators = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS warden_moderators (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    disabled_at BIGINT
  )`
})

/**
 * Who did what (issue 36): every review decision, appeal, feedback, platform action, erasure, replay and
 * moderator change, one row written in the transaction of what it records; never content.
 */
export const createAudit = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS warden_audit (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    role TEXT NOT NULL,
    action TEXT NOT NULL,
    source TEXT,
    reference TEXT,
    version INTEGER,
    detail TEXT
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_audit_at ON warden_audit (at DESC, id)`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_audit_actor ON warden_audit (actor, at DESC, id)`
})

/**
 * When each queued delivery first failed (issue 38): a sink retries a record for its `retry.window`
 * from then, and `/readyz` says since when a sink fails. Queued rows of an older daemon have none
 * (their window starts at their next failure). Indexed by sink, for `/readyz` and the pipeline page.
 */
export const addOutboxFirstFailed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  if (!(yield* hasColumn("warden_outbox", "first_failed_at")))
    yield* sql`ALTER TABLE warden_outbox ADD COLUMN first_failed_at BIGINT`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_outbox_failing ON warden_outbox (sink, first_failed_at)`
})

/**
 * The intake of push sources (issue 39): items an HTTP client was answered 202 for, kept until the
 * daemon committed the checkpoint past them (their verdicts recorded). `seq` orders a source's items;
 * the author's identifier and name are kept for erasure (an author's or a reference's pending items go
 * with the rest). 0017 is another change's.
 */
export const createIntake = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const seq = sql.onDialectOrElse({
    sqlite: () => sql.literal("seq INTEGER PRIMARY KEY AUTOINCREMENT"),
    orElse: () => sql.literal("seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
  })
  yield* sql`CREATE TABLE IF NOT EXISTS warden_intake (
    ${seq},
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    event TEXT NOT NULL,
    author TEXT,
    author_name TEXT,
    received_at BIGINT NOT NULL
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_intake_source ON warden_intake (source, seq)`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_intake_reference ON warden_intake (reference)`
})
