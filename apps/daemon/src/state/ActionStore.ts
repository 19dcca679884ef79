/**
 * Platform actions decided for item versions (written with the version, ItemStore.recordItems), run
 * by the ActionExecutor: pending until done or failed, retried with backoff in between.
 */
import { Clock, Context, Effect, Layer, type Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { ActionRecord, ActionRow } from "../domain/Action.ts"
import * as Rows from "./internal/Rows.ts"

/** The stored actions. */
export interface ActionStoreShape {
  /** The due pending actions of a source, oldest first. */
  readonly pendingActions: (source: string, limit: number) => Effect.Effect<ReadonlyArray<ActionRow>, SqlError.SqlError>
  /** The action ran (`done`) or will never run (`failed`). */
  readonly finishAction: (
    action: ActionRow,
    status: "done" | "failed",
    error: string | undefined
  ) => Effect.Effect<void, SqlError.SqlError>
  /** The action failed for now: run it again at `retryAt` (epoch milliseconds). */
  readonly retryAction: (action: ActionRow, error: string, retryAt: number) => Effect.Effect<void, SqlError.SqlError>
  /** When the source's soonest pending action that is not yet due falls due (epoch milliseconds), if any. */
  readonly nextRetryAt: (source: string) => Effect.Effect<Option.Option<number>, SqlError.SqlError>
  /** The actions of several items (one statement per 200), by `source\u001freference`, oldest first. */
  readonly ofItems: (
    items: ReadonlyArray<{ readonly source: string; readonly reference: string }>
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<ActionRow>>, SqlError.SqlError>
  /** The actions of a reference (of one source, or all), newest version first. */
  readonly actionsOf: (reference: string, source?: string) => Effect.Effect<ReadonlyArray<ActionRow>, SqlError.SqlError>
}

/** The action rows of one item version (what ItemStore.recordItems inserts). */
export const rowsOf = (
  item: { readonly source: string; readonly reference: string; readonly version: number },
  actions: ReadonlyArray<ActionRecord>,
  now: number
) =>
  actions.map((a) => ({
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

/** The item version's last action number (`null`: none yet). */
const decodeLastSeq = Rows.decode("warden_actions", Schema.Struct({ seq: Schema.NullOr(Rows.Int) }))

/**
 * The number of the next action of an item version (a moderator's, queued after its rule's): run it in
 * the transaction that inserts the action.
 */
export const nextSeq = (
  sql: SqlClient.SqlClient,
  item: { readonly source: string; readonly reference: string; readonly version: number }
) =>
  Effect.map(
    Effect.flatMap(
      sql`SELECT MAX(seq) AS seq FROM warden_actions
        WHERE source = ${item.source} AND reference = ${item.reference} AND version = ${item.version}`,
      decodeLastSeq
    ),
    ([last]) => (last?.seq ?? 0) + 1
  )

const Row = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Rows.Int,
  seq: Rows.Int,
  rule: Schema.String,
  kind: Schema.String,
  params: Rows.JsonText,
  reason: Rows.Text,
  status: Schema.String,
  attempts: Rows.Int,
  last_error: Rows.Text
})
const decodeRows = Rows.decode("warden_actions", Row)
const decodeSoonest = Rows.decodeMin("warden_actions")
const toActionRow = ({ last_error, ...r }: typeof Row.Type): ActionRow => ({ ...r, lastError: last_error })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const select = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
    Effect.map(Effect.flatMap(statement, decodeRows), (rows) => rows.map(toActionRow))
  const ofItems = Effect.fn("ActionStore.ofItems")(function* (
    items: ReadonlyArray<{ readonly source: string; readonly reference: string }>
  ) {
    const out = new Map<string, Array<ActionRow>>()
    const unique = [...new Map(items.map((i) => [`${i.source}\u001f${i.reference}`, i])).values()]
    for (let i = 0; i < unique.length; i += 200) {
      const chunk = unique.slice(i, i + 200)
      const rows =
        yield* select(sql`SELECT source, reference, version, seq, rule, kind, params, reason, status, attempts,
          last_error FROM warden_actions WHERE ${sql.or(
            chunk.map((c) => sql`(source = ${c.source} AND reference = ${c.reference})`)
          )} ORDER BY version, seq`)
      for (const row of rows) {
        const key = `${row.source}\u001f${row.reference}`
        const list = out.get(key)
        if (list === undefined) out.set(key, [row])
        else list.push(row)
      }
    }
    return out as ReadonlyMap<string, ReadonlyArray<ActionRow>>
  })
  return ActionStore.of({
    ofItems,
    pendingActions: Effect.fn("ActionStore.pendingActions")(function* (source: string, limit: number) {
      return yield* select(sql`SELECT source, reference, version, seq, rule, kind, params, reason, status, attempts, last_error
        FROM warden_actions WHERE source = ${source} AND status = 'pending' AND next_attempt_at <= ${yield* Clock.currentTimeMillis}
        ORDER BY created_at, reference, version, seq LIMIT ${limit}`)
    }),
    finishAction: Effect.fn("ActionStore.finishAction")(function* (
      a: ActionRow,
      status: "done" | "failed",
      error: string | undefined
    ) {
      yield* sql`UPDATE warden_actions SET status = ${status}, attempts = attempts + 1, last_error = ${error ?? null},
        done_at = ${yield* Clock.currentTimeMillis} WHERE source = ${a.source} AND reference = ${a.reference}
        AND version = ${a.version} AND seq = ${a.seq} AND status = 'pending'`
    }),
    retryAction: Effect.fn("ActionStore.retryAction")(function* (a: ActionRow, error: string, retryAt: number) {
      yield* sql`UPDATE warden_actions SET attempts = attempts + 1, last_error = ${error}, next_attempt_at = ${retryAt}
        WHERE source = ${a.source} AND reference = ${a.reference} AND version = ${a.version} AND seq = ${a.seq}`
    }),
    nextRetryAt: Effect.fn("ActionStore.nextRetryAt")(function* (source: string) {
      return yield* decodeSoonest(
        yield* sql`SELECT MIN(next_attempt_at) AS at FROM warden_actions
          WHERE source = ${source} AND status = 'pending' AND next_attempt_at > ${yield* Clock.currentTimeMillis}`
      )
    }),
    actionsOf: Effect.fn("ActionStore.actionsOf")((reference: string, source?: string) =>
      select(sql`SELECT source, reference, version, seq, rule, kind, params, reason, status, attempts, last_error
        FROM warden_actions WHERE reference = ${reference}
        ${source === undefined ? sql`` : sql`AND source = ${source}`} ORDER BY version DESC, seq`)
    )
  })
})

/** The stored actions. */
export class ActionStore extends Context.Service<ActionStore, ActionStoreShape>()("@warden/daemon/ActionStore") {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(ActionStore, make)
}
