/**
 * The audit (`warden_audit`, issue 36): who did what and when. Every review decision, appeal, feedback,
 * platform action, erasure, replay and moderator change writes one row; callers write it inside the
 * transaction of what it records (a store method run inside `sql.withTransaction` joins it), so the
 * audit never tells of something that did not happen, nor misses what did. Never content: a `detail`
 * holds ids, outcomes and counts (an erasure's author as the SHA-256 of its key).
 */
import { randomUUID } from "node:crypto"
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** The actions the audit records. */
export const ACTIONS = [
  "review.approve",
  "review.reject",
  "appeal.file",
  "appeal.uphold",
  "appeal.deny",
  "feedback",
  "platform.restore",
  "platform.remove",
  "erase",
  "replay",
  "moderator.add",
  "moderator.disable"
] as const
/** An action the audit records. */
export type AuditAction = (typeof ACTIONS)[number]

/** One thing done, to record. */
export interface AuditInput {
  readonly at: number
  /** The moderator's name, `admin-token` for the shared token, `cli:<user>` for the CLI. */
  readonly actor: string
  /** The actor's role (`viewer`, `moderator`, `admin`; `cli` for the command line). */
  readonly role: string
  readonly action: AuditAction
  readonly source?: string | undefined
  readonly reference?: string | undefined
  readonly version?: number | undefined
  /** Ids, outcomes and counts (never content). */
  readonly detail?: Record<string, unknown> | undefined
}

/** A recorded entry, as `GET /api/audit` shows it. */
export interface AuditEntry {
  readonly id: string
  readonly at: number
  readonly actor: string
  readonly role: string
  readonly action: string
  readonly source: string | null
  readonly reference: string | null
  readonly version: number | null
  readonly detail: unknown
}

/** Where a page of the audit ended (its last entry's sort key). */
export interface AuditPosition {
  readonly at: number
  readonly id: string
}

/** The filters of {@link AuditStoreShape.list}. */
export interface AuditQuery {
  readonly actor?: string | undefined
  readonly action?: string | undefined
  readonly source?: string | undefined
  readonly limit: number
  readonly after?: AuditPosition | undefined
}

const Row = Schema.Struct({
  id: Schema.String,
  at: Rows.Int,
  actor: Schema.String,
  role: Schema.String,
  action: Schema.String,
  source: Rows.Text,
  reference: Rows.Text,
  version: Schema.NullOr(Rows.Int),
  detail: Rows.JsonText
})
const decodeRows = Rows.decode("warden_audit", Row)

/** The audit. */
export interface AuditStoreShape {
  /** Records one entry; returns its id. Run it inside the transaction of what it records. */
  readonly record: (entry: AuditInput) => Effect.Effect<string, SqlError.SqlError>
  /** A page of entries, newest first (keyset-paged by `after`). */
  readonly list: (query: AuditQuery) => Effect.Effect<ReadonlyArray<AuditEntry>, SqlError.SqlError>
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return AuditStore.of({
    record: Effect.fn("AuditStore.record")(function* (entry: AuditInput) {
      const id = randomUUID()
      yield* sql`INSERT INTO warden_audit ${sql.insert({
        id,
        at: entry.at,
        actor: entry.actor,
        role: entry.role,
        action: entry.action,
        source: entry.source ?? null,
        reference: entry.reference ?? null,
        version: entry.version ?? null,
        detail: entry.detail === undefined ? null : JSON.stringify(entry.detail)
      })}`
      return id
    }),
    list: Effect.fn("AuditStore.list")(function* (query: AuditQuery) {
      const after = query.after
      const rows = yield* decodeRows(
        yield* sql`SELECT id, at, actor, role, action, source, reference, version, detail FROM warden_audit
          WHERE 1 = 1
          ${query.actor === undefined ? sql`` : sql`AND actor = ${query.actor}`}
          ${query.action === undefined ? sql`` : sql`AND action = ${query.action}`}
          ${query.source === undefined ? sql`` : sql`AND source = ${query.source}`}
          ${after === undefined ? sql`` : sql`AND at <= ${after.at} AND (at < ${after.at} OR id > ${after.id})`}
          ORDER BY at DESC, id LIMIT ${query.limit}`
      )
      return rows.map((r): AuditEntry => ({ ...r }))
    })
  })
})

/** The audit. */
export class AuditStore extends Context.Service<AuditStore, AuditStoreShape>()("@warden/daemon/AuditStore") {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(AuditStore, make)
}
