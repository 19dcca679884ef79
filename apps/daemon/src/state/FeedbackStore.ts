/** Feedback sent to the API (or refused) for item versions: by an operator, or on a platform signal. */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** Feedback sent (or refused) for an item version. */
export interface FeedbackInput {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly origin: string
  readonly feedbackId: string | undefined
  /** The feedback request as JSON text. */
  readonly request: string
  readonly status: "sent" | "failed"
  readonly error: string | undefined
}

/** Stored feedback, as the admin API shows it. */
export interface FeedbackEntry {
  readonly source: string
  readonly version: number
  readonly origin: string
  readonly id: string | null
  readonly status: string
  readonly error: string | null
  readonly request: unknown
  readonly createdAt: number
}

/** The feedback log. */
export interface FeedbackStoreShape {
  readonly recordFeedback: (feedback: FeedbackInput) => Effect.Effect<void, SqlError.SqlError>
  /** Whether feedback of an origin was already sent for an item version (automatic feedback: once). */
  readonly hasFeedback: (
    source: string,
    reference: string,
    version: number,
    origin: string
  ) => Effect.Effect<boolean, SqlError.SqlError>
  /** The feedback of several items (one statement per 200), by `source\u001freference`, oldest first. */
  readonly ofItems: (
    items: ReadonlyArray<{ readonly source: string; readonly reference: string }>
  ) => Effect.Effect<
    ReadonlyMap<string, ReadonlyArray<FeedbackEntry & { readonly reference: string }>>,
    SqlError.SqlError
  >
  /** The feedback of a reference (of one source, or all), oldest first. */
  readonly feedbackOf: (
    reference: string,
    source?: string
  ) => Effect.Effect<ReadonlyArray<FeedbackEntry>, SqlError.SqlError>
}

const Row = Schema.Struct({
  source: Schema.String,
  version: Rows.Int,
  origin: Schema.String,
  feedback_id: Rows.Text,
  status: Schema.String,
  error: Rows.Text,
  request: Rows.JsonText,
  created_at: Rows.Int
})
const decodeRows = Rows.decode("warden_feedback", Row)
const decodeItemRows = Rows.decode(
  "warden_feedback",
  Row.mapFields((fields) => ({ ...fields, reference: Schema.String }))
)
/** The highest `seq` taken for a version's origin (BIGINT: a string on PostgreSQL). */
const decodeLastSeq = Rows.decode("warden_feedback", Schema.Struct({ seq: Schema.NullOr(Rows.Int) }))

const toEntry = (r: typeof Row.Type): FeedbackEntry => ({
  source: r.source,
  version: r.version,
  origin: r.origin,
  id: r.feedback_id,
  status: r.status,
  error: r.error,
  request: r.request,
  createdAt: r.created_at
})

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return FeedbackStore.of({
    recordFeedback: Effect.fn("FeedbackStore.recordFeedback")(function* (row: FeedbackInput) {
      const now = yield* Clock.currentTimeMillis
      // `seq` tells apart the attempts of one origin on one version: the time, or, when another attempt
      // took that millisecond (a failed send and its resend in one tick, two runners), the next free one.
      // A plain ON CONFLICT DO NOTHING on the time dropped the second attempt's row silently.
      let seq = now
      // Bounded: only the primary key can refuse the row, and each retry takes the key past the highest.
      for (let tries = 0; tries < 100; tries++) {
        const inserted = yield* sql`INSERT INTO warden_feedback ${sql.insert({
          source: row.source,
          reference: row.reference,
          version: row.version,
          origin: row.origin,
          seq,
          feedback_id: row.feedbackId ?? null,
          request: row.request,
          status: row.status,
          error: row.error ?? null,
          created_at: now
        })} ON CONFLICT DO NOTHING RETURNING 1 AS one`
        if (inserted.length > 0) return
        const [last] = yield* decodeLastSeq(
          yield* sql`SELECT MAX(seq) AS seq FROM warden_feedback WHERE source = ${row.source}
            AND reference = ${row.reference} AND version = ${row.version} AND origin = ${row.origin}`
        )
        seq = Math.max(seq, last?.seq ?? seq) + 1
      }
      return yield* Effect.die(
        new Error(`warden_feedback: no free seq for ${row.source} ${row.reference} after 100 tries`)
      )
    }),
    hasFeedback: Effect.fn("FeedbackStore.hasFeedback")(function* (
      source: string,
      reference: string,
      version: number,
      origin: string
    ) {
      const rows = yield* sql`SELECT 1 AS one FROM warden_feedback WHERE source = ${source}
        AND reference = ${reference} AND version = ${version} AND origin = ${origin} AND status = 'sent'`
      return rows.length > 0
    }),
    feedbackOf: Effect.fn("FeedbackStore.feedbackOf")(function* (reference: string, source?: string) {
      const rows = yield* decodeRows(
        yield* sql`SELECT source, version, origin, feedback_id, status, error, request, created_at
          FROM warden_feedback WHERE reference = ${reference}
          ${source === undefined ? sql`` : sql`AND source = ${source}`} ORDER BY created_at`
      )
      return rows.map(toEntry)
    }),
    ofItems: Effect.fn("FeedbackStore.ofItems")(function* (
      items: ReadonlyArray<{ readonly source: string; readonly reference: string }>
    ) {
      const out = new Map<string, Array<FeedbackEntry & { readonly reference: string }>>()
      const unique = [...new Map(items.map((i) => [`${i.source}\u001f${i.reference}`, i])).values()]
      for (let i = 0; i < unique.length; i += 200) {
        const chunk = unique.slice(i, i + 200)
        const rows = yield* decodeItemRows(
          yield* sql`SELECT source, reference, version, origin, feedback_id, status, error, request, created_at
            FROM warden_feedback WHERE ${sql.or(chunk.map((c) => sql`(source = ${c.source} AND reference = ${c.reference})`))}
            ORDER BY created_at`
        )
        for (const row of rows) {
          const key = `${row.source}\u001f${row.reference}`
          const entry = { ...toEntry(row), reference: row.reference }
          const list = out.get(key)
          if (list === undefined) out.set(key, [entry])
          else list.push(entry)
        }
      }
      return out as ReadonlyMap<string, ReadonlyArray<FeedbackEntry & { readonly reference: string }>>
    })
  })
})

/** The feedback log. */
export class FeedbackStore extends Context.Service<FeedbackStore, FeedbackStoreShape>()(
  "@warden/daemon/FeedbackStore"
) {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(FeedbackStore, make)
}
