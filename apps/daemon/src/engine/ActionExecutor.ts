/**
 * Runs the platform actions decided for a source's verdicts, after the verdict is persisted: oldest
 * first, each recorded with its outcome; a retryable platform error is retried with backoff (honouring
 * the platform's retry-after), a permanent one is recorded as failed with its reason. Actions are keyed
 * by item version and marked done once run, so they do not run again after a restart.
 * Runs next to the source (in its singleton), since only the source's connector can act.
 *
 * An action run whose outcome the state store refused (its disk full, its server gone) is recorded
 * first when the store is back, not run again; while the store is down for other writes the executor
 * waits (StateHealth.pausedFor). The loop is the one of the sink worker (OutboxDrainer.ts).
 */
import type { Action, Backoff, Source } from "@warden/connector"
import { Cause, Clock, Duration, Effect, Exit } from "effect"
import type { ActionRow } from "../domain/Action.ts"
import { ActionStore } from "../state/ActionStore.ts"
import * as OutboxDrainer from "./OutboxDrainer.ts"

/** Attempts before a retryable action is given up as failed. */
export const MAX_ATTEMPTS = 8

/** Backoff of a retryable action: 1 second doubling up to 5 minutes. */
export const retryBackoff: Backoff.Backoff = { initial: Duration.seconds(1), max: Duration.minutes(5) }

/**
 * Delay before retry `attempt` (1-based) of an action: the connector SDK's one backoff (without its
 * jitter: the attempt count lives in the action row), or the platform's retry-after when longer.
 */
export const retryDelayMillis = (attempt: number, retryAfterMillis?: number): number =>
  OutboxDrainer.retryDelayMillis(retryBackoff, attempt, retryAfterMillis)

/**
 * What a failed `act` says: its `ActionError`, or for a defect (a connector bug: a throw, a die) a
 * retryable failure naming it, so the attempt is counted, backed off and given up after
 * {@link MAX_ATTEMPTS} like any other (before, a defect failed the executor's step, which picked the
 * same row again a second later, forever).
 */
const failureOf = (
  cause: Cause.Cause<Action.ActionError>
): Pick<Action.ActionError, "retryable" | "message" | "retryAfterMillis"> => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return failure.error
  return { retryable: true, message: `the connector's act failed unexpectedly: ${Cause.pretty(cause).split("\n")[0]}` }
}

/**
 * Runs the due actions of `sourceId` with `source.act` until interrupted. Between looks it waits for an
 * action queued in this process (WriteSignals), for its next retry to fall due, or for its look unasked
 * (for another process's), whichever comes first.
 */
export const run = (sourceId: string, source: Source.Source) =>
  Effect.gen(function* () {
    const store = yield* ActionStore
    const drainer = yield* OutboxDrainer.make({
      queue: "actions",
      nextRetryAt: store.nextRetryAt(sourceId),
      operation: `actions ${sourceId}`,
      retryBackoff,
      stepFailed: "action executor step failed",
      annotations: { source: sourceId }
    })
    const record = drainer.record
    const runOne = (row: ActionRow) =>
      Effect.withSpan("ActionExecutor.act", {
        attributes: { "warden.source": sourceId, "warden.action": row.kind, "warden.reference": row.reference }
      })(
        Effect.gen(function* () {
          const log = (message: string) =>
            Effect.annotateLogs({ source: sourceId, reference: row.reference, action: row.kind, version: row.version })(
              Effect.logInfo(message)
            )
          if (source.act === undefined) {
            yield* store.finishAction(row, "failed", "this source's connector cannot act on its platform")
            return yield* log("action failed: the connector cannot act")
          }
          const exit = yield* Effect.exit(
            source.act({
              kind: row.kind,
              reference: row.reference,
              ...(row.params === null || row.params === undefined
                ? {}
                : { params: row.params as Record<string, never> }),
              ...(row.reason === null ? {} : { reason: row.reason })
            })
          )
          if (Exit.isSuccess(exit)) {
            yield* record(store.finishAction(row, "done", exit.value.detail))
            return yield* log(`action ${exit.value.status}`)
          }
          // Stopping (shutdown) leaves the action pending, to run at the next start.
          if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.failCause(exit.cause)
          const error = failureOf(exit.cause)
          if (error.retryable && row.attempts + 1 < MAX_ATTEMPTS) {
            // The Clock's epoch milliseconds, as ActionStore compares them.
            const retryAt = drainer.retryAt(yield* Clock.currentTimeMillis, row.attempts + 1, error.retryAfterMillis)
            yield* record(store.retryAction(row, error.message, retryAt))
            return yield* log(`action failed, will retry: ${error.message}`)
          }
          yield* record(store.finishAction(row, "failed", error.message))
          yield* Effect.logError(`action failed: ${error.message}`).pipe(
            Effect.annotateLogs({ source: sourceId, reference: row.reference, action: row.kind })
          )
        })
      )
    // The actions of one item version run in order (hide before timeout); different items run at
    // once, so a connector that batches calls (YouTube's setModerationStatus takes 50 ids) can.
    const step = Effect.gen(function* () {
      const rows = yield* store.pendingActions(sourceId, 100)
      const byItem = new Map<string, Array<ActionRow>>()
      for (const row of rows) {
        const key = `${row.reference}\u0000${row.version}`
        const list = byItem.get(key)
        if (list === undefined) byItem.set(key, [row])
        else list.push(row)
      }
      yield* Effect.forEach(byItem.values(), (list) => Effect.forEach(list, runOne, { discard: true }), {
        concurrency: 50,
        discard: true
      })
      return rows.length > 0
    })
    return yield* drainer.run(step)
  })
