/**
 * The decisions listing of the admin API and the console: stored item versions, newest first,
 * filtered and keyset-paged.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import type { ActionOutcome, ListedStoredDecision, StoredDecision } from "../domain/Decision.ts"
import { withoutIgnored } from "../domain/HiddenCharacters.ts"
import * as Like from "./internal/Like.ts"
import * as Rows from "./internal/Rows.ts"
import * as SearchText from "./internal/SearchText.ts"

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
  /** Only items of this author (`<platform>:<identifier>`). */
  readonly author?: string | undefined
  /** Only items this rule matched. */
  readonly rule?: string | undefined
  /**
   * Text in the reference or the request sent (case-insensitive substring); in the request, zero-width
   * and bidirectional characters are ignored on both sides (`SearchText`).
   */
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

const Row = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Rows.Int,
  status: Schema.String,
  content_type: Schema.String,
  mode: Schema.String,
  endpoint: Rows.Text,
  request: Rows.Text,
  verdict: Rows.JsonText,
  error: Rows.JsonText,
  segments: Rows.Int,
  analysed_at: Rows.Text,
  created_at: Rows.Int,
  deleted_at: Rows.Text,
  rule: Rows.Text,
  author_key: Rows.Text,
  author_name: Rows.Text
})
const decodeRows = Rows.decode("warden_items", Row)

const toDecision = (row: typeof Row.Type): StoredDecision => ({
  source: row.source,
  reference: row.reference,
  version: row.version,
  status: row.status,
  contentType: row.content_type,
  mode: row.mode,
  endpoint: row.endpoint,
  request: row.request,
  verdict: row.verdict,
  error: row.error,
  segments: row.segments,
  analysedAt: row.analysed_at,
  createdAt: row.created_at,
  deletedAt: row.deleted_at,
  rule: row.rule,
  authorKey: row.author_key,
  authorName: row.author_name
})

const OutcomeRow = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Rows.Int,
  rule: Schema.String,
  kind: Schema.String,
  status: Schema.String
})
const decodeOutcomes = Rows.decode("warden_actions", OutcomeRow)

/** The decisions listing. */
export interface DecisionStoreShape {
  /** A page of decisions, newest first, each with its actions' outcomes. */
  readonly decisions: (query: DecisionQuery) => Effect.Effect<ReadonlyArray<ListedStoredDecision>, SqlError.SqlError>
  /** The statement {@link DecisionStoreShape.decisions} runs (tests read its query plan). */
  readonly decisionsStatement: (query: DecisionQuery) => Statement.Statement<object>
  /** Every version of a reference (of one source, or all), newest first. */
  readonly decision: (
    reference: string,
    source?: string
  ) => Effect.Effect<ReadonlyArray<StoredDecision>, SqlError.SqlError>
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

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
      ${query.author === undefined ? sql`` : sql`AND author_key = ${query.author}`}
      ${query.rule === undefined ? sql`` : sql`AND rule = ${query.rule}`}
      ${
        query.actionStatus === undefined
          ? sql``
          : sql`AND EXISTS (SELECT 1 FROM warden_actions a WHERE a.source = i.source AND a.reference = i.reference
              AND a.version = i.version AND a.status = ${query.actionStatus})`
      }
      ${
        // The reference as typed; the content without hidden characters, on both sides (SearchText).
        query.text === undefined
          ? sql``
          : sql.onDialectOrElse({
              pg: () => sql`AND (reference ILIKE ${Like.containing(query.text!)} ESCAPE '\\'
                OR ${SearchText.column(sql, "request")} ILIKE ${Like.containing(withoutIgnored(query.text!))} ESCAPE '\\')`,
              orElse: () => sql`AND (reference LIKE ${Like.containing(query.text!)} ESCAPE '\\'
                OR ${SearchText.column(sql, "request")} LIKE ${Like.containing(withoutIgnored(query.text!))} ESCAPE '\\')`
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

  const select = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
    Effect.map(Effect.flatMap(statement, decodeRows), (rows) => rows.map(toDecision))

  /**
   * The actions of a page's versions, in one statement: a seek per (source, reference) on the actions'
   * key; versions not on the page are dropped here.
   */
  const withActions = (page: ReadonlyArray<StoredDecision>) =>
    Effect.gen(function* () {
      if (page.length === 0) return []
      const rows = yield* decodeOutcomes(
        yield* sql`SELECT source, reference, version, rule, kind, status FROM warden_actions
          WHERE ${sql.in("source", [...new Set(page.map((d) => d.source))])}
          AND ${sql.in("reference", [...new Set(page.map((d) => d.reference))])} ORDER BY seq`
      )
      const byVersion = new Map<string, Array<ActionOutcome>>()
      for (const r of rows) {
        const key = `${r.source}\u001f${r.reference}\u001f${r.version}`
        const list = byVersion.get(key) ?? []
        list.push({ rule: r.rule, kind: r.kind, status: r.status })
        byVersion.set(key, list)
      }
      return page.map(
        (d): ListedStoredDecision => ({
          ...d,
          actions: byVersion.get(`${d.source}\u001f${d.reference}\u001f${d.version}`) ?? []
        })
      )
    })

  return DecisionStore.of({
    decisions: Effect.fn("DecisionStore.decisions")((query: DecisionQuery) =>
      Effect.flatMap(select(decisionsStatement(query)), withActions)
    ),
    decisionsStatement,
    decision: Effect.fn("DecisionStore.decision")((reference: string, source?: string) =>
      select(sql`SELECT * FROM warden_items WHERE reference = ${reference}
        ${source === undefined ? sql`` : sql`AND source = ${source}`} ORDER BY version DESC`)
    )
  })
})

/** The decisions listing. */
export class DecisionStore extends Context.Service<DecisionStore, DecisionStoreShape>()(
  "@warden/daemon/DecisionStore"
) {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(DecisionStore, make)
}
