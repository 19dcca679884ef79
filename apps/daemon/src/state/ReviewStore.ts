/**
 * The review queue (`warden_review`, issue 36): the item versions a `review: true` rule matched
 * (`kind` item, written in the record transaction) and the appeals filed (`kind` appeal), each
 * `pending` until a moderator approves or rejects it (for an appeal: upholds or denies). A newer version
 * of an item closes a pending row of an older one as `superseded`: the queue shows one row per item,
 * its latest content.
 *
 * Pending rows are read most severe first, then oldest (`warden_review_queue`); decided ones newest
 * first (`warden_review_decided`); both keyset-paged, so a page costs the same at any depth.
 */
import { severityRank } from "@warden/core"
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** The kinds of review row. */
export const KINDS = ["item", "appeal"] as const
/** A kind of review row. */
export type Kind = (typeof KINDS)[number]

/**
 * A severity as the queue orders it (most severe first): the known ones 10 (`NONE`) to 50
 * (`VERY_HIGH`), one the taxonomy does not know 25 (between `LOW` and `MEDIUM`, as core ranks it), no
 * severity 0.
 */
export const rankOf = (severity: string | undefined): number =>
  severity === undefined ? 0 : Math.round(severityRank(severity) * 10) + 10

/** The states of a review row. */
export const STATES = ["pending", "approved", "rejected", "superseded"] as const

/** A review row to write with its item version (the record transaction). */
export interface ReviewRecord {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly rule: string
  readonly verdictType: string | undefined
  /** The verdict's severity as a rank (`severityRank`): the queue's first order. */
  readonly severityRank: number
  readonly authorKey: string | undefined
  readonly createdAt: number
}

/** A stored review row. */
export interface Review {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly kind: Kind
  readonly state: string
  readonly rule: string | null
  readonly verdictType: string | null
  readonly severityRank: number
  readonly authorKey: string | null
  readonly createdAt: number
  readonly decidedAt: number | null
  readonly decidedBy: string | null
  readonly note: string | null
  readonly classifications: ReadonlyArray<string> | null
  /** An appeal's statement (the author's words). */
  readonly statement: string | null
}

/** Where a page of the queue ended: the sort key of its last row. */
export type ReviewPosition =
  | {
      readonly state: "pending"
      readonly severityRank: number
      readonly createdAt: number
      readonly source: string
      readonly reference: string
    }
  | { readonly state: "decided"; readonly decidedAt: number; readonly source: string; readonly reference: string }

/** The filters of {@link ReviewStoreShape.list}. */
export interface ReviewQuery {
  readonly state: "pending" | "decided"
  readonly source?: string | undefined
  readonly kind?: Kind | undefined
  readonly limit: number
  readonly after?: ReviewPosition | undefined
}

/** What is pending: in all, and per source with its oldest row's time. */
export interface PendingCounts {
  readonly total: number
  readonly bySource: ReadonlyArray<{ readonly source: string; readonly count: number; readonly oldestAt: number }>
}

const Row = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Rows.Int,
  kind: Schema.Literals(KINDS),
  state: Schema.String,
  rule: Rows.Text,
  verdict_type: Rows.Text,
  severity_rank: Rows.Int,
  author_key: Rows.Text,
  created_at: Rows.Int,
  decided_at: Schema.NullOr(Rows.Int),
  decided_by: Rows.Text,
  note: Rows.Text,
  classifications: Schema.NullOr(Schema.fromJsonString(Schema.Array(Schema.String))),
  statement: Rows.Text
})
const decodeRows = Rows.decode("warden_review", Row)
const decodeCounts = Rows.decode(
  "warden_review",
  Schema.Struct({ source: Schema.String, n: Rows.Int, oldest: Rows.Int })
)

const toReview = (r: typeof Row.Type): Review => ({
  source: r.source,
  reference: r.reference,
  version: r.version,
  kind: r.kind,
  state: r.state,
  rule: r.rule,
  verdictType: r.verdict_type,
  severityRank: r.severity_rank,
  authorKey: r.author_key,
  createdAt: r.created_at,
  decidedAt: r.decided_at,
  decidedBy: r.decided_by,
  note: r.note,
  classifications: r.classifications,
  statement: r.statement
})

/** The rows of a batch's new review items (what ItemStore.recordItems inserts, ON CONFLICT DO NOTHING). */
export const rowsOf = (records: ReadonlyArray<ReviewRecord>) =>
  records.map((r) => ({
    source: r.source,
    reference: r.reference,
    version: r.version,
    kind: "item",
    state: "pending",
    rule: r.rule,
    verdict_type: r.verdictType ?? null,
    severity_rank: r.severityRank,
    author_key: r.authorKey ?? null,
    created_at: r.createdAt,
    decided_at: null,
    decided_by: null,
    note: null,
    classifications: null,
    statement: null
  }))

/** A decision of a moderator on the pending row of an item. */
export interface DecideInput {
  readonly source: string
  readonly reference: string
  readonly state: "approved" | "rejected"
  readonly decidedBy: string
  readonly decidedAt: number
  readonly note: string | undefined
  readonly classifications: ReadonlyArray<string> | undefined
}

/** An appeal to file on an item version: the author's statement, and the item's rule and verdict. */
export interface Appeal {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly rule: string | null
  readonly verdictType: string | null
  readonly severityRank: number
  readonly authorKey: string | null
  readonly createdAt: number
  readonly statement: string
}

/** The review queue. */
export interface ReviewStoreShape {
  /** A page of the queue: pending (most severe, then oldest) or decided (newest first). */
  readonly list: (query: ReviewQuery) => Effect.Effect<ReadonlyArray<Review>, SqlError.SqlError>
  /** How many rows are pending, per source, with the oldest's time. */
  readonly pending: Effect.Effect<PendingCounts, SqlError.SqlError>
  /**
   * Decides the item's pending row (the latest version's, an appeal's or an item's): the row as
   * decided, or undefined when none is pending. Only one caller can win it (`state = 'pending'`).
   */
  readonly decide: (input: DecideInput) => Effect.Effect<Review | undefined, SqlError.SqlError>
  /** Every review row of an item (newest version first, appeals after items). */
  readonly ofItem: (source: string, reference: string) => Effect.Effect<ReadonlyArray<Review>, SqlError.SqlError>
  /** The review rows of several items (one statement per 200), by `source\u001freference`. */
  readonly ofItems: (
    items: ReadonlyArray<{ readonly source: string; readonly reference: string }>
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<Review>>, SqlError.SqlError>
  /**
   * The rows added (`created_at`) or decided, superseded included (`decided_at`), at or after `since`,
   * oldest first (the review stream's poll), at most `limit` of each.
   */
  readonly changedSince: (
    since: number,
    limit: number
  ) => Effect.Effect<
    { readonly added: ReadonlyArray<Review>; readonly decided: ReadonlyArray<Review> },
    SqlError.SqlError
  >
  /** Files a pending appeal on an item version; false when that version was appealed before. */
  readonly fileAppeal: (appeal: Appeal) => Effect.Effect<boolean, SqlError.SqlError>
}

/** The key {@link ReviewStoreShape.ofItems} answers by. */
export const itemKey = (source: string, reference: string) => `${source}\u001f${reference}`

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const select = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
    Effect.map(Effect.flatMap(statement, decodeRows), (rows) => rows.map(toReview))

  /** A page of the queue; exported through the shape for the query-plan test and the bench. */
  const listStatement = (q: ReviewQuery) => {
    const filters = sql`${q.source === undefined ? sql`` : sql`AND source = ${q.source}`}
      ${q.kind === undefined ? sql`` : sql`AND kind = ${q.kind}`}`
    const after = q.after
    if (q.state === "pending") {
      const from =
        after === undefined || after.state !== "pending"
          ? sql``
          : sql`AND severity_rank <= ${after.severityRank} AND (severity_rank < ${after.severityRank}
              OR (created_at > ${after.createdAt} OR (created_at = ${after.createdAt} AND (source > ${after.source}
              OR (source = ${after.source} AND reference > ${after.reference})))))`
      return sql`SELECT * FROM warden_review WHERE state = 'pending' ${filters} ${from}
        ORDER BY severity_rank DESC, created_at, source, reference LIMIT ${q.limit}`
    }
    const from =
      after === undefined || after.state !== "decided"
        ? sql``
        : sql`AND decided_at <= ${after.decidedAt} AND (decided_at < ${after.decidedAt}
            OR (source > ${after.source} OR (source = ${after.source} AND reference > ${after.reference})))`
    return sql`SELECT * FROM warden_review WHERE decided_at IS NOT NULL AND decided_by IS NOT NULL ${filters} ${from}
      ORDER BY decided_at DESC, source, reference LIMIT ${q.limit}`
  }

  return ReviewStore.of({
    list: Effect.fn("ReviewStore.list")((query: ReviewQuery) => select(listStatement(query))),
    pending: Effect.gen(function* () {
      const rows = yield* decodeCounts(
        yield* sql`SELECT source, COUNT(*) AS n, MIN(created_at) AS oldest FROM warden_review
          WHERE state = 'pending' GROUP BY source ORDER BY source`
      )
      return {
        total: rows.reduce((n, r) => n + r.n, 0),
        bySource: rows.map((r) => ({ source: r.source, count: r.n, oldestAt: r.oldest }))
      }
    }).pipe(Effect.withSpan("ReviewStore.pending")),
    decide: Effect.fn("ReviewStore.decide")(function* (input: DecideInput) {
      const [row] = yield* select(sql`UPDATE warden_review SET state = ${input.state}, decided_by = ${input.decidedBy},
          decided_at = ${input.decidedAt}, note = ${input.note ?? null},
          classifications = ${input.classifications === undefined ? null : JSON.stringify(input.classifications)}
        WHERE source = ${input.source} AND reference = ${input.reference} AND state = 'pending' RETURNING *`)
      return row
    }),
    changedSince: Effect.fn("ReviewStore.changedSince")(function* (since: number, limit: number) {
      const added = yield* select(
        sql`SELECT * FROM warden_review WHERE created_at >= ${since} ORDER BY created_at LIMIT ${limit}`
      )
      const decided = yield* select(
        sql`SELECT * FROM warden_review WHERE decided_at >= ${since} ORDER BY decided_at LIMIT ${limit}`
      )
      return { added, decided }
    }),
    ofItem: Effect.fn("ReviewStore.ofItem")((source: string, reference: string) =>
      select(sql`SELECT * FROM warden_review WHERE source = ${source} AND reference = ${reference}
        ORDER BY version DESC, kind DESC, created_at DESC`)
    ),
    ofItems: Effect.fn("ReviewStore.ofItems")(function* (
      items: ReadonlyArray<{ readonly source: string; readonly reference: string }>
    ) {
      const out = new Map<string, Array<Review>>()
      const unique = [...new Map(items.map((i) => [itemKey(i.source, i.reference), i])).values()]
      for (let i = 0; i < unique.length; i += 200) {
        const chunk = unique.slice(i, i + 200)
        const rows = yield* select(
          sql`SELECT * FROM warden_review WHERE ${sql.or(
            chunk.map((c) => sql`(source = ${c.source} AND reference = ${c.reference})`)
          )} ORDER BY version DESC, kind DESC, created_at DESC`
        )
        for (const row of rows) {
          const key = itemKey(row.source, row.reference)
          const list = out.get(key)
          if (list === undefined) out.set(key, [row])
          else list.push(row)
        }
      }
      return out as ReadonlyMap<string, ReadonlyArray<Review>>
    }),
    fileAppeal: Effect.fn("ReviewStore.fileAppeal")(function* (appeal: Appeal) {
      const rows = yield* sql`INSERT INTO warden_review ${sql.insert({
        source: appeal.source,
        reference: appeal.reference,
        version: appeal.version,
        kind: "appeal",
        state: "pending",
        rule: appeal.rule,
        verdict_type: appeal.verdictType,
        severity_rank: appeal.severityRank,
        author_key: appeal.authorKey,
        created_at: appeal.createdAt,
        decided_at: null,
        decided_by: null,
        note: null,
        classifications: null,
        statement: appeal.statement
      })} ON CONFLICT DO NOTHING RETURNING 1 AS one`
      return rows.length > 0
    })
  })
})

/** The review queue. */
export class ReviewStore extends Context.Service<ReviewStore, ReviewStoreShape>()("@warden/daemon/ReviewStore") {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(ReviewStore, make)
}
