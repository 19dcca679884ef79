/**
 * The state store's first tables (migrations 0001-0007): items, segments, checkpoints, the sink
 * outbox and dead letters, source errors, actions and feedback, re-analysis requests, source dead
 * letters, the decision listing's indexes, erasure and the owner row. Portable SQL (Migrations.ts).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export const createItems = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // One row per analysed version of an item: the exact request sent, the response, the verdict.
  yield* sql`CREATE TABLE IF NOT EXISTS warden_items (
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    content_type TEXT NOT NULL,
    status TEXT NOT NULL,
    mode TEXT NOT NULL,
    endpoint TEXT,
    request TEXT,
    response TEXT,
    verdict TEXT,
    error TEXT,
    segments INTEGER NOT NULL DEFAULT 1,
    event TEXT NOT NULL,
    verdict_type TEXT,
    severity TEXT,
    recommended_action TEXT,
    classifications TEXT,
    analysed_at TEXT,
    created_at BIGINT NOT NULL,
    deleted_at TEXT,
    PRIMARY KEY (source, reference, version)
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_reference ON warden_items (reference, version)`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_created ON warden_items (created_at)`
  // Every segment of an item whose text was split, each with its exact request and response.
  yield* sql`CREATE TABLE IF NOT EXISTS warden_segments (
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    segment INTEGER NOT NULL,
    request TEXT NOT NULL,
    response TEXT,
    PRIMARY KEY (source, reference, version, segment)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS warden_checkpoints (
    source TEXT PRIMARY KEY,
    checkpoint TEXT NOT NULL,
    updated_at BIGINT NOT NULL
  )`
  // The sink outbox: written in the same transaction as the verdict, drained by one worker per sink.
  yield* sql`CREATE TABLE IF NOT EXISTS warden_outbox (
    id TEXT PRIMARY KEY,
    sink TEXT NOT NULL,
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    next_attempt_at BIGINT NOT NULL DEFAULT 0
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_outbox_sink ON warden_outbox (sink, created_at, id)`
  yield* sql`CREATE TABLE IF NOT EXISTS warden_dead_letters (
    id TEXT PRIMARY KEY,
    sink TEXT NOT NULL,
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    payload TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    failed_at BIGINT NOT NULL
  )`
  // Errors a source reported (feed down, malformed payload): what could not be processed.
  yield* sql`CREATE TABLE IF NOT EXISTS warden_source_errors (
    source TEXT NOT NULL,
    at BIGINT NOT NULL,
    reason TEXT NOT NULL,
    message TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_source_errors_at ON warden_source_errors (source, at)`
})

export const createActionsFeedback = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Platform actions decided by a source's rules, one row per action of a verdict: run after the
  // verdict is persisted, retried with backoff, recorded with their outcome; dry runs record "would-do".
  yield* sql`CREATE TABLE IF NOT EXISTS warden_actions (
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    rule TEXT NOT NULL,
    kind TEXT NOT NULL,
    params TEXT,
    reason TEXT,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    next_attempt_at BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    done_at BIGINT,
    PRIMARY KEY (source, reference, version, seq)
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_actions_pending ON warden_actions (source, status, next_attempt_at)`
  // Feedback sent to the API about an item version; `origin` says who asked (an operator, a
  // moderator's reversal on the platform, an end-user report) and keeps automatic feedback to one.
  yield* sql`CREATE TABLE IF NOT EXISTS warden_feedback (
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    origin TEXT NOT NULL,
    seq BIGINT NOT NULL,
    feedback_id TEXT,
    request TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (source, reference, version, origin, seq)
  )`
})

export const createReanalyse = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Item versions an operator asked to analyse again (`warden reanalyse`): the source's sweep sends
  // them through the pipeline; recording a newer version of the item clears the request.
  yield* sql`CREATE TABLE IF NOT EXISTS warden_reanalyse (
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    requested_at BIGINT NOT NULL,
    PRIMARY KEY (source, reference)
  )`
})

export const createSourceDeadLetters = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Events a source emitted that the daemon could not take (a reference over 256 characters, a
  // checkpoint that is not JSON, content failing the schema): skipped, the source goes on. One row per
  // source, reference and field; `count` says how often the same event came again (e.g. after restarts).
  yield* sql`CREATE TABLE IF NOT EXISTS warden_source_dead_letters (
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    field TEXT NOT NULL,
    reason TEXT NOT NULL,
    event TEXT NOT NULL,
    count INTEGER NOT NULL DEFAULT 1,
    first_at BIGINT NOT NULL,
    last_at BIGINT NOT NULL,
    PRIMARY KEY (source, reference, field)
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_source_dead_letters_last ON warden_source_dead_letters (last_at)`
})

export const createDecisionIndexes = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The decisions listing (admin API, review console): newest first, keyset-paged. One index in the
  // listing's order, and one per equality filter followed by that order, so a page of any filter at
  // any depth is an index seek plus `limit` rows (StateStore.decisions; EXPLAIN QUERY PLAN in tests).
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_listing
    ON warden_items (created_at DESC, source, reference, version DESC)`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_listing_source
    ON warden_items (source, created_at DESC, reference, version DESC)`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_listing_type
    ON warden_items (verdict_type, created_at DESC, source, reference, version DESC)`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_listing_severity
    ON warden_items (severity, created_at DESC, source, reference, version DESC)`
  // The listing's order covers what this one served (oldest unprocessed, `since`).
  yield* sql`DROP INDEX IF EXISTS warden_items_created`
})

export const createErasure = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Retention and erasure (state/Erasure.ts): when an item's content was erased, and the author's id
  // (from the event) so `warden erase --author` finds every item of an author without reading JSON.
  yield* sql`ALTER TABLE warden_items ADD COLUMN erased_at TEXT`
  yield* sql`ALTER TABLE warden_items ADD COLUMN author TEXT`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_author ON warden_items (author)`
  // Erasing an item rewrites its rows in the outbox and dead letters: found by item, not by scanning
  // a backlog that grows while a sink is down.
  yield* sql`CREATE INDEX IF NOT EXISTS warden_outbox_item ON warden_outbox (source, reference, version)`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_dead_letters_item ON warden_dead_letters (source, reference, version)`
  // The audit of every erasure: who, when, what kind of selector, how many rows; never the content
  // (an author id is kept as its SHA-256, the reference as it is: dedupe keeps it anyway).
  yield* sql`CREATE TABLE IF NOT EXISTS warden_erasures (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    selector TEXT NOT NULL,
    target TEXT,
    source TEXT,
    counts TEXT NOT NULL
  )`
})

export const createOwner = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The daemon running on this state (StateOwner, SQLite): one row, its heartbeat.
  yield* sql`CREATE TABLE IF NOT EXISTS warden_owner (
    id INTEGER PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL
  )`
})
