/**
 * The daemon's durable state on `effect/sql` (SQLite by default, PostgreSQL when shared): analysed item
 * versions with the exact request sent, source checkpoints, the sink outbox and its dead letters.
 *
 * Every write is idempotent (deterministic keys, ON CONFLICT DO NOTHING): delivery through the
 * cluster is at-least-once, so the same item may be recorded twice and must land once.
 */
import { Array as Arr, Context, Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Migrations from "./Migrations.ts"
import { authorOf } from "./ItemAuthor.ts"

/** What was recorded for the newest version of an item. */
export interface LatestVersion {
  readonly version: number
  readonly contentHash: string
  readonly status: string
  /** An operator asked for this version to be analysed again (`warden reanalyse`). */
  readonly reanalyse?: boolean
}

/** Statuses `warden reanalyse` takes: items without a verdict, or refused as bad input. */
export const REANALYSABLE = ["unrecognised", "unanalysed", "failed"] as const
/** @see {@link REANALYSABLE} */
export type Reanalysable = (typeof REANALYSABLE)[number]

/** A segment of a split text: its exact request and the response. */
export interface SegmentRecord {
  readonly request: string
  readonly response: string | undefined
}

/** One analysed (or failed, or unanalysed) version of an item, as stored. */
export interface ItemRecord {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly contentHash: string
  readonly contentType: string
  readonly status: "analysed" | "failed" | "unanalysed" | "unrecognised"
  readonly mode: "v1" | "legacy"
  readonly endpoint: string | undefined
  /** The exact JSON text sent (of the most severe segment when split). */
  readonly request: string | undefined
  readonly response: string | undefined
  readonly verdict: unknown
  readonly error: unknown
  readonly segments: ReadonlyArray<SegmentRecord>
  /** The source event, as JSON text: what re-analysis and actions need. */
  readonly event: string
  /**
   * The author's identifier (`event.author.identifier`) when the caller has the event at hand (the
   * batch processor: no parsing `event` back per item); left out, it is read from `event`.
   */
  readonly author?: string | undefined
  readonly analysedAt: string | undefined
  readonly createdAt: number
}

/** A platform action decided for an item version. */
export interface ActionRecord {
  readonly seq: number
  readonly rule: string
  readonly kind: string
  readonly params: unknown
  readonly reason: string | undefined
  /** `pending` to run, `would-do` in a dry run. */
  readonly status: "pending" | "would-do"
}

/** A stored action, as the executor and the admin API see it. */
export interface ActionRow {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly seq: number
  readonly rule: string
  readonly kind: string
  readonly params: unknown
  readonly reason: string | null
  readonly status: string
  readonly attempts: number
  readonly lastError: string | null
}

/** A row of the sink outbox. */
export interface OutboxRow {
  readonly id: string
  readonly sink: string
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly payload: string
  readonly attempts: number
}

/** Filters of the decisions query. */
export interface DecisionQuery {
  readonly source?: string | undefined
  readonly since?: number | undefined
  readonly classification?: string | undefined
  /** The recommended action of the verdict (`hide`, `none`...). */
  readonly action?: string | undefined
  /** The verdict's analysis type (`THREAT`, `INSULT`...). */
  readonly type?: string | undefined
  readonly severity?: string | undefined
  /** Only items with a platform action in this status (`pending`, `done`, `failed`, `would-do`). */
  readonly actionStatus?: string | undefined
  /** Text in the reference or the request sent (case-insensitive substring). */
  readonly text?: string | undefined
  readonly limit: number
  /** Keyset paging: only rows after this one in the listing's order (newest first). */
  readonly after?: DecisionPosition | undefined
}

/** Where a page of decisions ended: the listing's sort key of its last row. */
export interface DecisionPosition {
  readonly createdAt: number
  readonly source: string
  readonly reference: string
  readonly version: number
}

/** A stored decision, as the admin API shows it. */
export interface Decision {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly status: string
  readonly contentType: string
  readonly mode: string
  readonly endpoint: string | null
  readonly request: string | null
  readonly verdict: unknown
  readonly error: unknown
  readonly segments: number
  readonly analysedAt: string | null
  readonly createdAt: number
  readonly deletedAt: string | null
}

const parseJson = (text: unknown): unknown => (typeof text === "string" ? JSON.parse(text) : null)

const toDecision = (row: any): Decision => ({
  source: row.source,
  reference: row.reference,
  version: Number(row.version),
  status: row.status,
  contentType: row.content_type,
  mode: row.mode,
  endpoint: row.endpoint ?? null,
  request: row.request ?? null,
  verdict: parseJson(row.verdict),
  error: parseJson(row.error),
  segments: Number(row.segments),
  analysedAt: row.analysed_at ?? null,
  createdAt: Number(row.created_at),
  deletedAt: row.deleted_at ?? null
})

const outboxId = (sink: string, source: string, reference: string, version: number) =>
  `${sink}\u001f${source}\u001f${reference}\u001f${version}`

/** One item version to record, with the sinks it is queued for and the actions decided. */
export interface RecordEntry {
  readonly item: ItemRecord
  readonly sinks: ReadonlyArray<string>
  /** The verdict record queued for the sinks, as JSON text. */
  readonly payload: string
  readonly actions?: ReadonlyArray<ActionRecord> | undefined
}

const itemRow = (item: ItemRecord) => {
  const v = (item.verdict ?? {}) as {
    type?: string
    severity?: string
    recommendedAction?: string
    classifications?: ReadonlyArray<string>
  }
  return {
    source: item.source,
    reference: item.reference,
    version: item.version,
    content_hash: item.contentHash,
    content_type: item.contentType,
    status: item.status,
    mode: item.mode,
    endpoint: item.endpoint ?? null,
    request: item.request ?? null,
    response: item.response ?? null,
    verdict: item.verdict === undefined ? null : JSON.stringify(item.verdict),
    error: item.error === undefined ? null : JSON.stringify(item.error),
    segments: Math.max(1, item.segments.length),
    event: item.event,
    verdict_type: v.type ?? null,
    severity: v.severity ?? null,
    recommended_action: v.recommendedAction ?? null,
    classifications: v.classifications ? `,${v.classifications.join(",")},` : null,
    analysed_at: item.analysedAt ?? null,
    created_at: item.createdAt,
    author: ("author" in item ? item.author : authorOf(item.event)) ?? null
  }
}

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

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // SQLite: wait for another process's lock (an operator's sqlite3, a backup) instead of failing.
  yield* sql.onDialectOrElse({ sqlite: () => sql`PRAGMA busy_timeout = 10000`, orElse: () => Effect.void })
  // SQLite: let the file shrink when space is freed (purged batch messages; ClusterTables.reclaimSpace).
  // Takes effect on a new database only (this runs before any table is created); an older file keeps
  // its mode until a `VACUUM` (docs/operations.md, "Disk").
  yield* sql.onDialectOrElse({ sqlite: () => sql`PRAGMA auto_vacuum = INCREMENTAL`, orElse: () => Effect.void })
  // SQLite: zero freed cells and pages, so erased content (Erasure.ts) leaves no bytes in the file,
  // not even stale copies made by earlier page splits.
  yield* sql.onDialectOrElse({ sqlite: () => sql`PRAGMA secure_delete = ON`, orElse: () => Effect.void })
  yield* Migrations.run

  const getCheckpoint = (source: string): Effect.Effect<Option.Option<string>, SqlError.SqlError> =>
    sql<{ checkpoint: string }>`SELECT checkpoint FROM warden_checkpoints WHERE source = ${source}`.pipe(
      Effect.map((rows) => Option.fromNullishOr(rows[0]?.checkpoint))
    )

  const commitCheckpoint = (source: string, checkpoint: string) =>
    sql`INSERT INTO warden_checkpoints (source, checkpoint, updated_at) VALUES (${source}, ${checkpoint}, ${Date.now()})
        ON CONFLICT (source) DO UPDATE SET checkpoint = excluded.checkpoint, updated_at = excluded.updated_at`.pipe(
      Effect.asVoid
    )

  const latestVersion = (source: string, reference: string) =>
    sql<{ version: number; content_hash: string; status: string }>`
      SELECT version, content_hash, status FROM warden_items
      WHERE source = ${source} AND reference = ${reference}
      ORDER BY version DESC LIMIT 1`.pipe(
      Effect.map((rows) =>
        Option.map(
          Option.fromNullishOr(rows[0]),
          (row): LatestVersion => ({ version: Number(row.version), contentHash: row.content_hash, status: row.status })
        )
      )
    )

  /**
   * The newest recorded version of each reference (one query per 500 references): what the batch
   * processor needs to dedupe a whole round at once.
   */
  const latestVersions = (source: string, references: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const out = new Map<string, LatestVersion>()
      const unique = [...new Set(references)]
      for (let i = 0; i < unique.length; i += 500) {
        const chunk = unique.slice(i, i + 500)
        const rows = yield* sql<{
          reference: string
          version: number
          content_hash: string
          status: string
          requested: number | null
        }>`
          SELECT i.reference, i.version, i.content_hash, i.status, r.version AS requested FROM warden_items i
          LEFT JOIN warden_reanalyse r ON r.source = i.source AND r.reference = i.reference
          WHERE i.source = ${source} AND ${sql.in("i.reference", chunk)}`
        for (const row of rows) {
          const version = Number(row.version)
          const known = out.get(row.reference)
          if (known === undefined || known.version < version) {
            out.set(row.reference, {
              version,
              contentHash: row.content_hash,
              status: row.status,
              reanalyse: row.requested !== null && Number(row.requested) >= version
            })
          }
        }
      }
      return out
    })

  /**
   * Records item versions and queues each for its sinks, all in one transaction (one commit for a
   * whole round of a batch). A version recorded before (a redelivery) is left as it is, and nothing
   * is queued for it again: its entry in the result is `false`.
   */
  const recordItems = (entries: ReadonlyArray<RecordEntry>) =>
    entries.length === 0
      ? Effect.succeed([] as Array<boolean>)
      : sql.withTransaction(
          Effect.gen(function* () {
            const inserted = new Set<string>()
            const key = (reference: string, version: number) => `${reference}\u001f${version}`
            // Multi-row statements, in chunks that stay far below the bound-variable limits.
            for (let i = 0; i < entries.length; i += 100) {
              const chunk: Array<Record<string, unknown>> = entries.slice(i, i + 100).map(({ item }) => itemRow(item))
              if (!Arr.isArrayNonEmpty(chunk)) continue
              const rows = yield* sql<{ reference: string; version: number }>`INSERT INTO warden_items ${sql.insert(
                chunk
              )} ON CONFLICT DO NOTHING RETURNING reference, version`
              for (const row of rows) inserted.add(key(row.reference, Number(row.version)))
            }
            const fresh = entries.filter(({ item }) => inserted.has(key(item.reference, item.version)))
            const segments = fresh.flatMap(({ item }) =>
              item.segments.length > 1
                ? item.segments.map((s, segment) => ({
                    source: item.source,
                    reference: item.reference,
                    version: item.version,
                    segment,
                    request: s.request,
                    response: s.response ?? null
                  }))
                : []
            )
            const outbox = fresh.flatMap(({ item, sinks, payload }) =>
              sinks.map((sink) => ({
                id: outboxId(sink, item.source, item.reference, item.version),
                sink,
                source: item.source,
                reference: item.reference,
                version: item.version,
                payload,
                created_at: item.createdAt,
                attempts: 0,
                next_attempt_at: 0
              }))
            )
            const now = Date.now()
            const actions = fresh.flatMap(({ item, actions }) =>
              (actions ?? []).map((a) => ({
                source: item.source,
                reference: item.reference,
                version: item.version,
                seq: a.seq,
                rule: a.rule,
                kind: a.kind,
                params: a.params === undefined ? null : JSON.stringify(a.params),
                reason: a.reason ?? null,
                status: a.status,
                attempts: 0,
                next_attempt_at: 0,
                created_at: now
              }))
            )
            for (const [table, rows] of [
              ["warden_segments", segments],
              ["warden_outbox", outbox],
              ["warden_actions", actions]
            ] as const) {
              for (let i = 0; i < rows.length; i += 100) {
                const chunk = rows.slice(i, i + 100) as Array<Record<string, unknown>>
                if (Arr.isArrayNonEmpty(chunk)) {
                  yield* sql`INSERT INTO ${sql(table)} ${sql.insert(chunk)} ON CONFLICT DO NOTHING`
                }
              }
            }
            // A newer version answers any request to analyse the item again (one statement per source).
            const bySource = new Map<string, Array<string>>()
            for (const { item } of fresh)
              bySource.set(item.source, [...(bySource.get(item.source) ?? []), item.reference])
            for (const [source, references] of bySource) {
              for (let i = 0; i < references.length; i += 500) {
                yield* sql`DELETE FROM warden_reanalyse WHERE source = ${source}
                  AND ${sql.in("reference", references.slice(i, i + 500))}`
              }
            }
            return entries.map(({ item }) => inserted.has(key(item.reference, item.version)))
          })
        )

  /**
   * Records an item version and queues it for every sink, in one transaction. A version recorded
   * before (a redelivery) is left as it is: returns `false` then.
   */
  const recordItem = (
    item: ItemRecord,
    sinks: ReadonlyArray<string>,
    payload: string,
    actions: ReadonlyArray<ActionRecord> = []
  ) => Effect.map(recordItems([{ item, sinks, payload, actions }]), (inserted) => inserted[0] === true)

  const toActionRow = (r: any): ActionRow => ({
    source: r.source,
    reference: r.reference,
    version: Number(r.version),
    seq: Number(r.seq),
    rule: r.rule,
    kind: r.kind,
    params: parseJson(r.params),
    reason: r.reason ?? null,
    status: r.status,
    attempts: Number(r.attempts),
    lastError: r.last_error ?? null
  })

  /** The due pending actions of a source, oldest first. */
  const pendingActions = (source: string, limit: number) =>
    sql`SELECT * FROM warden_actions WHERE source = ${source} AND status = 'pending' AND next_attempt_at <= ${Date.now()}
        ORDER BY created_at, reference, version, seq LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(toActionRow)))

  const finishAction = (a: ActionRow, status: "done" | "failed", error: string | undefined) =>
    sql`UPDATE warden_actions SET status = ${status}, attempts = attempts + 1, last_error = ${error ?? null},
        done_at = ${Date.now()} WHERE source = ${a.source} AND reference = ${a.reference}
        AND version = ${a.version} AND seq = ${a.seq} AND status = 'pending'`.pipe(Effect.asVoid)

  const retryAction = (a: ActionRow, error: string, retryAt: number) =>
    sql`UPDATE warden_actions SET attempts = attempts + 1, last_error = ${error}, next_attempt_at = ${retryAt}
        WHERE source = ${a.source} AND reference = ${a.reference} AND version = ${a.version} AND seq = ${a.seq}`.pipe(
      Effect.asVoid
    )

  const actionsOf = (reference: string, source?: string) =>
    sql`SELECT * FROM warden_actions WHERE reference = ${reference}
      ${source === undefined ? sql`` : sql`AND source = ${source}`} ORDER BY version DESC, seq`.pipe(
      Effect.map((rows) => rows.map(toActionRow))
    )

  /** The stored item row of a version (the latest when `version` is undefined). */
  const item = (source: string | undefined, reference: string, version: number | undefined) =>
    sql`SELECT * FROM warden_items WHERE reference = ${reference}
      ${source === undefined ? sql`` : sql`AND source = ${source}`}
      ${version === undefined ? sql`` : sql`AND version = ${version}`}
      ORDER BY version DESC LIMIT 1`.pipe(Effect.map((rows) => Option.fromNullishOr(rows[0] as any)))

  /** Records feedback sent (or refused) for an item version. */
  const recordFeedback = (row: {
    readonly source: string
    readonly reference: string
    readonly version: number
    readonly origin: string
    readonly feedbackId: string | undefined
    readonly request: string
    readonly status: "sent" | "failed"
    readonly error: string | undefined
  }) =>
    sql`INSERT INTO warden_feedback ${sql.insert({
      source: row.source,
      reference: row.reference,
      version: row.version,
      origin: row.origin,
      seq: Date.now(),
      feedback_id: row.feedbackId ?? null,
      request: row.request,
      status: row.status,
      error: row.error ?? null,
      created_at: Date.now()
    })} ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)

  /** Whether feedback of an origin was already sent for an item version (automatic feedback: once). */
  const hasFeedback = (source: string, reference: string, version: number, origin: string) =>
    sql`SELECT 1 AS one FROM warden_feedback WHERE source = ${source} AND reference = ${reference}
        AND version = ${version} AND origin = ${origin} AND status = 'sent'`.pipe(Effect.map((rows) => rows.length > 0))

  const feedbackOf = (reference: string, source?: string) =>
    sql<any>`SELECT * FROM warden_feedback WHERE reference = ${reference}
      ${source === undefined ? sql`` : sql`AND source = ${source}`} ORDER BY created_at`.pipe(
      Effect.map((rows) =>
        rows.map((r) => ({
          source: r.source,
          version: Number(r.version),
          origin: r.origin,
          id: r.feedback_id ?? null,
          status: r.status,
          error: r.error ?? null,
          request: JSON.parse(r.request),
          createdAt: Number(r.created_at)
        }))
      )
    )

  /**
   * Items waiting for a real verdict: recorded "unanalysed" (API was down, failure mode allow/reject),
   * or asked to be analysed again by an operator (`warden reanalyse`).
   */
  const unanalysed = (source: string, limit: number) =>
    sql<{ reference: string; version: number; event: string }>`SELECT reference, version, event FROM warden_items i
      WHERE source = ${source} AND erased_at IS NULL AND (status = 'unanalysed' OR EXISTS (
        SELECT 1 FROM warden_reanalyse r WHERE r.source = i.source AND r.reference = i.reference
        AND r.version = i.version)) AND NOT EXISTS (
        SELECT 1 FROM warden_items j WHERE j.source = i.source AND j.reference = i.reference AND j.version > i.version)
      ORDER BY created_at LIMIT ${limit}`

  /**
   * Asks for the latest version of every item with `status` (of one source, or all) to be analysed
   * again; returns how many were queued. With `emptyVerdicts`, `unrecognised` also takes items recorded
   * `analysed` with an empty verdict: what a daemon before the `unrecognised` outcome stored for an
   * answer without one (`warden reanalyse` does; the automatic re-queue at start does not).
   */
  const requestReanalysis = (status: Reanalysable, source: string | undefined, emptyVerdicts = false) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* sql<{ source: string; reference: string; version: number }>`
          SELECT source, reference, version FROM warden_items i
          WHERE ${source === undefined ? sql`1 = 1` : sql`source = ${source}`}
          AND deleted_at IS NULL AND erased_at IS NULL
          AND (status = ${status} ${
            status === "unrecognised" && emptyVerdicts
              ? sql`OR (status = 'analysed' AND verdict_type IS NULL AND severity IS NULL
                  AND recommended_action IS NULL AND (classifications IS NULL OR classifications = ',,'))`
              : sql``
          })
          AND NOT EXISTS (SELECT 1 FROM warden_items j
            WHERE j.source = i.source AND j.reference = i.reference AND j.version > i.version)`
        const now = Date.now()
        for (let i = 0; i < rows.length; i += 100) {
          const chunk = rows
            .slice(i, i + 100)
            .map((r) => ({ source: r.source, reference: r.reference, version: Number(r.version), requested_at: now }))
          if (Arr.isArrayNonEmpty(chunk))
            yield* sql`INSERT INTO warden_reanalyse ${sql.insert(chunk)} ON CONFLICT (source, reference)
              DO UPDATE SET version = excluded.version, requested_at = excluded.requested_at`
        }
        return rows.length
      })
    )

  const markDeleted = (source: string, reference: string) =>
    sql`UPDATE warden_items SET deleted_at = ${new Date().toISOString()}
        WHERE source = ${source} AND reference = ${reference} AND deleted_at IS NULL`.pipe(Effect.asVoid)

  /** The oldest undelivered rows of a sink that are due, in order. */
  const pendingOutbox = (sink: string, limit: number) =>
    sql<OutboxRow>`SELECT id, sink, source, reference, version, payload, attempts FROM warden_outbox
      WHERE sink = ${sink} AND next_attempt_at <= ${Date.now()}
      ORDER BY created_at, id LIMIT ${limit}`.pipe(
      Effect.map((rows) => rows.map((r) => ({ ...r, version: Number(r.version), attempts: Number(r.attempts) })))
    )

  const markDelivered = (ids: ReadonlyArray<string>) =>
    ids.length === 0 ? Effect.void : sql`DELETE FROM warden_outbox WHERE ${sql.in("id", ids)}`.pipe(Effect.asVoid)

  const markAttemptFailed = (id: string, error: string, retryAt: number) =>
    sql`UPDATE warden_outbox SET attempts = attempts + 1, last_error = ${error}, next_attempt_at = ${retryAt}
        WHERE id = ${id}`.pipe(Effect.asVoid)

  const deadLetter = (row: OutboxRow, error: string) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`INSERT INTO warden_dead_letters ${sql.insert({
          id: row.id,
          sink: row.sink,
          source: row.source,
          reference: row.reference,
          version: row.version,
          payload: row.payload,
          attempts: row.attempts + 1,
          last_error: error,
          failed_at: Date.now()
        })} ON CONFLICT DO NOTHING`
        yield* sql`DELETE FROM warden_outbox WHERE id = ${row.id}`
      })
    )

  /** Verdicts waiting for one sink (due or waiting to be retried). */
  const sinkBacklog = (sink: string) =>
    sql<{ n: number }>`SELECT COUNT(*) AS n FROM warden_outbox WHERE sink = ${sink}`.pipe(
      Effect.map((rows) => Number(rows[0]?.n ?? 0))
    )

  const recordSourceError = (source: string, reason: string, message: string) =>
    sql`INSERT INTO warden_source_errors ${sql.insert({ source, at: Date.now(), reason, message })}`.pipe(Effect.asVoid)

  /**
   * Records an event a source emitted that the daemon cannot take; the same event again (after a
   * restart) bumps `count`. The reference is kept whole up to 1024 characters (it may be the problem).
   */
  const recordSourceDeadLetter = (letter: SourceDeadLetterInput) => {
    const now = Date.now()
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
    return sql`INSERT INTO warden_source_dead_letters ${sql.insert(row)}
      ON CONFLICT (source, reference, field) DO UPDATE SET count = warden_source_dead_letters.count + 1,
        reason = excluded.reason, event = excluded.event, last_at = excluded.last_at`.pipe(Effect.asVoid)
  }

  /** The dead-lettered source events, newest first. */
  const sourceDeadLetters = (query: { readonly source?: string | undefined; readonly limit: number }) =>
    sql<{
      source: string
      reference: string
      field: string
      reason: string
      event: string
      count: number
      first_at: number
      last_at: number
    }>`SELECT * FROM warden_source_dead_letters
      ${query.source === undefined ? sql`` : sql`WHERE source = ${query.source}`}
      ORDER BY last_at DESC, source, reference LIMIT ${query.limit}`.pipe(
      Effect.map((rows) =>
        rows.map(
          (r): SourceDeadLetter => ({
            source: r.source,
            reference: r.reference,
            field: r.field,
            reason: r.reason,
            event: r.event,
            count: Number(r.count),
            firstAt: new Date(Number(r.first_at)).toISOString(),
            lastAt: new Date(Number(r.last_at)).toISOString()
          })
        )
      )
    )

  /** The stored checkpoint of a source with when it was written, for `warden source checkpoint show`. */
  const checkpointRow = (source: string) =>
    sql<{ checkpoint: string; updated_at: number }>`
      SELECT checkpoint, updated_at FROM warden_checkpoints WHERE source = ${source}`.pipe(
      Effect.map((rows) =>
        Option.map(Option.fromNullishOr(rows[0]), (r) => ({
          checkpoint: r.checkpoint,
          updatedAt: Number(r.updated_at)
        }))
      )
    )

  /** Forgets a source's checkpoint: its next start reads from where a new source would. `true` if there was one. */
  const resetCheckpoint = (source: string) =>
    sql<{ source: string }>`DELETE FROM warden_checkpoints WHERE source = ${source} RETURNING source`.pipe(
      Effect.map((rows) => rows.length > 0)
    )

  /** `%text%` for LIKE, with LIKE's own wildcards taken literally (escaped with `\\`). */
  const likePattern = (text: string) => `%${text.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`

  /**
   * A page of decisions, newest first, keyset-paged (`after`): each filter has an index that starts
   * with it and ends in the listing order (Migrations `0005`), so a page costs the same at any depth.
   * The redundant `created_at <= ?` lets the index seek to the cursor instead of walking to it.
   */
  const decisionsStatement = (query: DecisionQuery) =>
    sql`SELECT * FROM warden_items i WHERE 1 = 1
      ${query.source === undefined ? sql`` : sql`AND source = ${query.source}`}
      ${query.type === undefined ? sql`` : sql`AND verdict_type = ${query.type}`}
      ${query.severity === undefined ? sql`` : sql`AND severity = ${query.severity}`}
      ${query.since === undefined ? sql`` : sql`AND created_at >= ${query.since}`}
      ${query.classification === undefined ? sql`` : sql`AND classifications LIKE ${`%,${query.classification},%`}`}
      ${query.action === undefined ? sql`` : sql`AND recommended_action = ${query.action}`}
      ${
        query.actionStatus === undefined
          ? sql``
          : sql`AND EXISTS (SELECT 1 FROM warden_actions a WHERE a.source = i.source AND a.reference = i.reference
              AND a.version = i.version AND a.status = ${query.actionStatus})`
      }
      ${
        query.text === undefined
          ? sql``
          : sql.onDialectOrElse({
              pg: () => sql`AND (reference ILIKE ${likePattern(query.text!)} ESCAPE '\\'
                OR request ILIKE ${likePattern(query.text!)} ESCAPE '\\')`,
              orElse: () => sql`AND (reference LIKE ${likePattern(query.text!)} ESCAPE '\\'
                OR request LIKE ${likePattern(query.text!)} ESCAPE '\\')`
            })
      }
      ${
        query.after === undefined
          ? sql``
          : sql`AND created_at <= ${query.after.createdAt}
              AND (created_at < ${query.after.createdAt} OR (created_at = ${query.after.createdAt} AND (
              source > ${query.after.source} OR (source = ${query.after.source} AND (
                reference > ${query.after.reference} OR (reference = ${query.after.reference}
                AND version < ${query.after.version}))))))`
      }
      ORDER BY created_at DESC, source, reference, version DESC LIMIT ${query.limit}`

  const decisions = (query: DecisionQuery) => decisionsStatement(query).pipe(Effect.map((rows) => rows.map(toDecision)))

  const decision = (reference: string, source?: string) =>
    sql`SELECT * FROM warden_items WHERE reference = ${reference}
      ${source === undefined ? sql`` : sql`AND source = ${source}`} ORDER BY version DESC`.pipe(
      Effect.map((rows) => rows.map(toDecision))
    )

  /** The sources that recorded a reference (more than one: the reference alone is ambiguous). */
  const sourcesOf = (reference: string) =>
    sql<{
      source: string
    }>`SELECT DISTINCT source FROM warden_items WHERE reference = ${reference} ORDER BY source`.pipe(
      Effect.map((rows) => rows.map((r) => r.source))
    )

  const segments = (source: string, reference: string, version: number) =>
    sql<{ segment: number; request: string; response: string | null }>`
      SELECT segment, request, response FROM warden_segments
      WHERE source = ${source} AND reference = ${reference} AND version = ${version} ORDER BY segment`

  const counts = sql<{ source: string; status: string; n: number }>`
    SELECT source, status, COUNT(*) AS n FROM warden_items GROUP BY source, status`

  /** Whether the store accepts a write right now (readiness). */
  const writable = sql`UPDATE warden_checkpoints SET updated_at = updated_at WHERE source = ''`.pipe(Effect.asVoid)

  return {
    pendingActions,
    finishAction,
    retryAction,
    actionsOf,
    item,
    recordFeedback,
    hasFeedback,
    feedbackOf,
    unanalysed,
    requestReanalysis,
    getCheckpoint,
    commitCheckpoint,
    latestVersion,
    latestVersions,
    recordItem,
    recordItems,
    markDeleted,
    pendingOutbox,
    markDelivered,
    markAttemptFailed,
    deadLetter,
    sinkBacklog,
    recordSourceError,
    recordSourceDeadLetter,
    sourceDeadLetters,
    checkpointRow,
    resetCheckpoint,
    decisions,
    decisionsStatement,
    decision,
    sourcesOf,
    segments,
    counts,
    writable,
    sql
  } as const
})

/** The daemon's durable state. */
export class StateStore extends Context.Service<StateStore, Effect.Success<typeof make>>()(
  "@warden/daemon/StateStore"
) {
  /** The store on the `SqlClient` in context, migrated on start. */
  static readonly layer = Layer.effect(StateStore, make)
}
