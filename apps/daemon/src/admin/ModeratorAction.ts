/**
 * "Restore" and "Remove" from the review console: a moderator reverses what Warden did (or did not do)
 * to an item on its platform. The action is queued in `warden_actions` like a rule's (rule
 * {@link RULE}), so the source's own action executor runs it with the connector's `act`, on whichever
 * runner holds the source, with the same retries and the same record; the request waits a little for
 * the outcome so the moderator sees it.
 *
 * - Restore (`restore`): offered when Warden's last platform action on the item's latest version was a
 *   `hide`, `holdForReview` or `reject` that is still in force, and the connector declares `restore`.
 * - Remove: offered when no such action is in force, with the first of `hide`, `holdForReview`,
 *   `reject`, `delete` the connector declares (the mildest that takes the item out of view).
 */
import { Clock, Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { ActionRow } from "../domain/Action.ts"
import { platformState, removalKind } from "../domain/PlatformState.ts"
import * as ActionStore from "../state/ActionStore.ts"
import { AuditStore } from "../state/AuditStore.ts"
import * as Rows from "../state/internal/Rows.ts"
import { WriteSignals } from "../state/WriteSignals.ts"
import type { ModerateResult, PlatformAction } from "./DecisionsApi.ts"

/** What a moderator can ask for. */
export type Request = typeof PlatformAction.Type

/** The rule name of the actions a moderator asked for in the console. */
export const RULE = "console"

export { platformState, removalInForce, removalKind } from "../domain/PlatformState.ts"

/** What the console may offer for an item version, given the connector's declared action kinds. */
export const available = (
  declared: ReadonlyArray<string>,
  actions: ReadonlyArray<ActionRow>,
  version: number
): ReadonlyArray<Request> => {
  // An action still waiting to run: its outcome decides what comes next.
  if (actions.some((a) => a.version === version && a.status === "pending")) return []
  const state = platformState(actions, version)
  if (state === "removed") return declared.includes("restore") ? ["restore"] : []
  if (state === "visible") return removalKind(declared) === undefined ? [] : ["remove"]
  return []
}

/** The outcome of a queued action, as far as it got while the request waited (`ModerateResult.action`). */
export type Outcome = (typeof ModerateResult.Type)["action"]

/** How long {@link perform} waits for the outcome. */
const WAIT_MILLIS = 15_000

/** How far the queued action got. */
const decodeProgress = Rows.decode(
  "warden_actions",
  Schema.Struct({ status: Schema.String, attempts: Rows.Int, last_error: Rows.Text })
)

/**
 * Queues `kind` on the item version and waits up to {@link WAIT_MILLIS} for the source's executor to run
 * it (woken by the queueing: WriteSignals); a retryable failure leaves it `pending`, retried with backoff.
 */
export const perform = (
  sql: SqlClient.SqlClient,
  item: { readonly source: string; readonly reference: string; readonly version: number },
  kind: string,
  reason: string,
  actor: { readonly name: string; readonly role: string }
) =>
  Effect.gen(function* () {
    const { source, reference, version } = item
    const audit = yield* AuditStore
    const seq = yield* sql.withTransaction(
      Effect.gen(function* () {
        const next = yield* ActionStore.nextSeq(sql, item)
        const action = { seq: next, rule: RULE, kind, params: undefined, reason, status: "pending" } as const
        const now = yield* Clock.currentTimeMillis
        const [row] = ActionStore.rowsOf(item, [action], now)
        yield* sql`INSERT INTO warden_actions ${sql.insert(row!)}`
        yield* audit.record({
          at: now,
          actor: actor.name,
          role: actor.role,
          action: kind === "restore" ? "platform.restore" : "platform.remove",
          source,
          reference,
          version,
          detail: { kind, seq: next, rule: RULE }
        })
        return next
      })
    )
    // The source's executor runs it now rather than at its next look.
    const signals = yield* WriteSignals
    signals.actions.ring()
    const read = sql`SELECT status, attempts, last_error
      FROM warden_actions WHERE source = ${source} AND reference = ${reference} AND version = ${version} AND seq = ${seq}`
    const deadline = (yield* Clock.currentTimeMillis) + WAIT_MILLIS
    for (;;) {
      const [row] = yield* decodeProgress(yield* read)
      const outcome: Outcome = {
        kind,
        seq,
        status: row?.status ?? "pending",
        attempts: row?.attempts ?? 0,
        lastError: row?.last_error ?? null
      }
      if (outcome.status !== "pending" || (yield* Clock.currentTimeMillis) >= deadline) return outcome
      yield* Effect.sleep(150)
    }
  })
