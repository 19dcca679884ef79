/**
 * The state store's tables, created by `effect/sql`'s migrator. The SQL is portable between SQLite and
 * PostgreSQL (TEXT, INTEGER/BIGINT, composite keys, ON CONFLICT), so one list serves both.
 */
import { Effect, Schema } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

const createItems = Effect.gen(function* () {
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

const createActionsFeedback = Effect.gen(function* () {
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

const createReanalyse = Effect.gen(function* () {
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

const createSourceDeadLetters = Effect.gen(function* () {
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

const createDecisionIndexes = Effect.gen(function* () {
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

const createErasure = Effect.gen(function* () {
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

const createOwner = Effect.gen(function* () {
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

const decodeItemCount = Rows.decodeCount("warden_items")
/** warden_items' primary key constraint (PostgreSQL). */
const decodeConstraint = Rows.decode("pg_constraint", Schema.Struct({ conname: Schema.String }))
/** A table's or index's CREATE statement (SQLite). */
const decodeStatements = Rows.decode("sqlite_schema", Schema.Struct({ sql: Schema.String }))

/**
 * warden_items keyed by (reference, source, version) instead of (source, reference, version), and
 * without the (reference, version) index that the reference-first key now serves. References are
 * hashes, so each of those two indexes took every batch's rows at random pages: the record
 * transaction wrote ~100 scattered pages per index and batch, and once the index outgrew SQLite's
 * page cache each insert read them back. One random index instead of two: 79.5 -> 53.5-57.3 µs of
 * CPU per item recorded over 300,000 versions (bench/sqlite-items.ts, docs/BENCHMARKS.md). Every
 * lookup stays a seek: by reference (alone or with source and version) on the key, by source on
 * `warden_items_listing_source`.
 *
 * SQLite cannot change a table's key: the table is copied into a new one (about a minute per
 * million rows, 2 GB, on the benchmark machine; the freed pages are reused or returned by the
 * incremental vacuum). PostgreSQL swaps the key's index in place.
 */
const keyItemsByReference = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* decodeItemCount(yield* sql`SELECT COUNT(*) AS n FROM warden_items`)
  if (rows > 0) {
    yield* Effect.logInfo(
      `state: re-keying warden_items by reference (${rows.toLocaleString("en-US")} rows, once; SQLite copies the table, about a minute per million rows)`
    )
  }
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        const [key] = yield* decodeConstraint(
          yield* sql`SELECT conname FROM pg_constraint WHERE conrelid = 'warden_items'::regclass AND contype = 'p'`
        )
        if (key !== undefined) yield* sql`ALTER TABLE warden_items DROP CONSTRAINT ${sql(key.conname)}`
        yield* sql`ALTER TABLE warden_items ADD PRIMARY KEY (reference, source, version)`
        yield* sql`DROP INDEX IF EXISTS warden_items_reference`
      }),
    orElse: () =>
      Effect.gen(function* () {
        // The new table is the stored one's own statement (0001's columns, 0006's appended ones) with
        // the key reordered; its indexes are the stored ones but the reference index. Read, not
        // written again here, so the copy cannot drift from what the earlier migrations made.
        const [table] = yield* decodeStatements(
          yield* sql`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'warden_items'`
        )
        const create = (table?.sql ?? "")
          .replace(/^CREATE TABLE warden_items\b/u, "CREATE TABLE warden_items_by_reference")
          .replace("PRIMARY KEY (source, reference, version)", "PRIMARY KEY (reference, source, version)")
        if (
          !create.startsWith("CREATE TABLE warden_items_by_reference") ||
          !create.includes("(reference, source, version)")
        ) {
          return yield* Effect.die(new Error(`warden_items is not as migrations 0001-0007 made it: ${table?.sql}`))
        }
        const indexes = yield* decodeStatements(
          yield* sql`SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'warden_items' AND sql IS NOT NULL
            AND name <> 'warden_items_reference'`
        )
        yield* sql.unsafe(create)
        // Same columns in the same order; in insertion order, so the new rowids (and pages) follow the old.
        yield* sql`INSERT INTO warden_items_by_reference SELECT * FROM warden_items ORDER BY rowid`
        yield* sql`DROP TABLE warden_items`
        yield* sql`ALTER TABLE warden_items_by_reference RENAME TO warden_items`
        for (const index of indexes) yield* sql.unsafe(index.sql)
      })
  })
})

/**
 * 0009 built a (source, status) index; 0010 replaces it with (source, status, created_at). Kept as an
 * empty step: a state at 0008 or earlier goes straight to 0010's index instead of building, over every
 * item version, one that 0010 drops at once. States that ran it keep theirs until 0010 drops it.
 */
const indexItemsByStatus = Effect.void

/**
 * Item versions by source, status and age. `GET /api/pipeline` (the console's pipeline page, every 5 s)
 * counts by source and status from it instead of the table: on SQLite the count runs on the daemon's
 * thread, and over 1,000,000 item versions (2 GB) the table scan took 0.9 s with the file in the OS
 * cache and 36 s without, the index 62 ms. The re-analysis sweep (ItemStore.unanalysedStatement) reads
 * a source's oldest `unanalysed` versions from it in order and stops at its limit, instead of sorting
 * every one of them at each sweep (after a long outage in `allow` mode, hundreds of thousands). Entries
 * go at the end of their (source, status): `created_at` grows with the rowid.
 */
const indexItemsByStatusAndAge = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_status_created ON warden_items (source, status, created_at)`
  yield* sql`DROP INDEX IF EXISTS warden_items_status`
})

/** Column names of warden_items (SQLite's table_info, PostgreSQL's catalogue). */
const decodeColumns = Rows.decode("a table's columns", Schema.Struct({ name: Schema.String }))

/**
 * The rule that matched each item version (issue 36): the console's Outcome column and decision page
 * name it even when the rule takes no platform action (it only routes to sinks, or sends to review),
 * which no other table records. Versions recorded before get the rule of their actions where they had
 * one (a moderator's `console` action is not a rule); the others stay NULL: which rule, if any, matched
 * them is not known. Adding a nullable column rewrites no row on either database. The column is added
 * only when absent, so a state where another migration added it already goes on.
 */
/** Whether `table` has a column `name` (a migration that adds one runs again on a state that has it). */
const hasColumn = (table: string, name: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const listed = sql.onDialectOrElse({
      pg: () => sql`SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ${table}`,
      orElse: () => sql`SELECT name FROM pragma_table_info(${table})`
    })
    return (yield* decodeColumns(yield* listed)).some((c) => c.name === name)
  })

const addItemsRule = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  if (yield* hasColumn("warden_items", "rule")) return
  yield* sql`ALTER TABLE warden_items ADD COLUMN rule TEXT`
  yield* sql`UPDATE warden_items SET rule = (SELECT MIN(a.rule) FROM warden_actions a
      WHERE a.source = warden_items.source AND a.reference = warden_items.reference
      AND a.version = warden_items.version AND a.rule <> 'console')
    WHERE (source, reference, version) IN (SELECT source, reference, version FROM warden_actions WHERE rule <> 'console')`
})

/**
 * Items by author (issue 37): the author key (`<platform>:<identifier>`, the same person across the
 * sources of one platform) and the username as the event gave it, filled at record time. The index
 * serves an author's history newest first, the counts over a window, and the record transaction's read
 * of an author's recent items (`when.author`). Rows recorded before have neither: the source's platform
 * is in the config, not in the state, so the daemon fills `author_key` at start from `author` and the
 * source's connector type (AuthorBackfill); `author_name` stays empty for them.
 */
const addItemAuthors = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE warden_items ADD COLUMN author_key TEXT`
  yield* sql`ALTER TABLE warden_items ADD COLUMN author_name TEXT`
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_author_key ON warden_items (author_key, created_at DESC)`
  // The rows AuthorBackfill has yet to fill (none once it ran: new rows get their key as they are recorded).
  yield* sql`CREATE INDEX IF NOT EXISTS warden_items_author_unkeyed ON warden_items (source)
    WHERE author IS NOT NULL AND author_key IS NULL`
})

/**
 * The review queue (issue 36): one row per item version a `review: true` rule matched (`kind` item) or
 * an appeal filed (`kind` appeal), pending until a moderator decides. The queue is read most severe
 * then oldest; decided rows newest first. A newer version of the item closes a pending row of an older
 * one as `superseded` (the queue shows one row per item).
 */
const createReview = Effect.gen(function* () {
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
const createStrikes = Effect.gen(function* () {
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
const createModerators = Effect.gen(function* () {
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
const createAudit = Effect.gen(function* () {
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
const addOutboxFirstFailed = Effect.gen(function* () {
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
const createIntake = Effect.gen(function* () {
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
