/**
 * The stored verdicts of a source over a window, with the actions that were actually decided for
 * each and whether a rule sent it to review: what a policy backtest (`warden policy test`,
 * `POST /api/policy/test`) replays.
 */
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** One analysed item version of the window. */
export interface Replayable {
  readonly reference: string
  readonly version: number
  readonly verdict: unknown
  readonly createdAt: number
  /** The actions decided then (any status: pending, done, failed, would-do), in order. */
  readonly actions: ReadonlyArray<{ readonly rule: string; readonly kind: string }>
  /** Whether a rule sent it to the review queue then. */
  readonly reviewed: boolean
  /** Its author (`<platform>:<identifier>`), if the event named one. */
  readonly authorKey: string | null
}

/** An item version of the window: its verdict as JSON text (`null` without one), read as any JSON value. */
const decodeItems = Rows.decode(
  "warden_items",
  Schema.Struct({
    reference: Schema.String,
    version: Rows.Int,
    status: Schema.String,
    verdict: Rows.JsonText,
    created_at: Rows.Int,
    author_key: Rows.Text
  })
)
/** An item version of the window a rule sent to review. */
const decodeReviewed = Rows.decode("warden_review", Schema.Struct({ reference: Schema.String, version: Rows.Int }))
/** An action decided for an item version of the window. */
const decodeActions = Rows.decode(
  "warden_actions",
  Schema.Struct({ reference: Schema.String, version: Rows.Int, rule: Schema.String, kind: Schema.String })
)

/** The window's verdicts, oldest first, and how many versions in it have no verdict (not replayable). */
export const window = Effect.fn("VerdictHistory.window")(function* (source: string, since: number) {
  const sql = yield* SqlClient.SqlClient
  const items = yield* decodeItems(
    yield* sql`SELECT reference, version, status, verdict, created_at, author_key FROM warden_items
      WHERE source = ${source} AND created_at >= ${since} ORDER BY created_at, reference, version`
  )
  const reviewed = new Set(
    (yield* decodeReviewed(
      yield* sql`SELECT reference, version FROM warden_review
        WHERE source = ${source} AND kind = 'item' AND created_at >= ${since}`
    )).map((r) => `${r.reference}\u001f${r.version}`)
  )
  const actions = yield* decodeActions(
    yield* sql`SELECT a.reference, a.version, a.rule, a.kind FROM warden_actions a
      JOIN warden_items i ON i.source = a.source AND i.reference = a.reference AND i.version = a.version
      WHERE a.source = ${source} AND i.created_at >= ${since} ORDER BY a.reference, a.version, a.seq`
  )
  const byKey = new Map<string, Array<{ rule: string; kind: string }>>()
  for (const a of actions) {
    const key = `${a.reference}\u001f${a.version}`
    byKey.set(key, [...(byKey.get(key) ?? []), { rule: a.rule, kind: a.kind }])
  }
  const replayable: Array<Replayable> = []
  let withoutVerdict = 0
  for (const row of items) {
    if (row.status !== "analysed" || row.verdict === null) {
      withoutVerdict += 1
      continue
    }
    replayable.push({
      reference: row.reference,
      version: row.version,
      verdict: row.verdict,
      createdAt: row.created_at,
      actions: byKey.get(`${row.reference}\u001f${row.version}`) ?? [],
      reviewed: reviewed.has(`${row.reference}\u001f${row.version}`),
      authorKey: row.author_key
    })
  }
  return { replayable, withoutVerdict }
})
