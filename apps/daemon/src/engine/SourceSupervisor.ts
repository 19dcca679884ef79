/**
 * The supervisor of a source. A cluster singleton whose effect ends is not restarted until the next
 * shard re-sync, so the supervisor never ends: a non-retryable ConnectorError (`Unauthorized`,
 * `InvalidCheckpoint`, `InvalidConfig`) pauses the source until its checkpoint changes (`warden source
 * checkpoint reset`) or the daemon restarts; any other failure (a retryable error, a defect) restarts
 * it with backoff. Waits on the fiber's `Clock`.
 */
import { Backoff, ConnectorError } from "@warden/connector"
import { Cause, Duration, Effect, Exit, Metric, Option } from "effect"
import type { SqlError } from "effect/sql"
import type { CheckpointStoreShape } from "../state/CheckpointStore.ts"
import * as StateHealth from "../state/StateHealth.ts"
import * as Metrics from "./Metrics.ts"
import { SourceStatus } from "./SourceStatus.ts"

/** Backoff of a source's restarts after its stream failed: 1 second doubling up to 5 minutes. */
export const restartBackoff: Backoff.Backoff = { initial: Duration.seconds(1), max: Duration.minutes(5) }

/** A source's supervisor. */
export interface SourceSupervisor {
  /** The source committed a checkpoint: the restarts' backoff starts again from its first wait. */
  readonly committed: Effect.Effect<void>
  /**
   * Runs `start` (one start of the source) for ever, restarting or pausing it as it fails; fails only
   * when the checkpoint a pause waits on cannot be read as the pause begins.
   */
  readonly run: <E, R>(start: Effect.Effect<unknown, E, R>) => Effect.Effect<never, SqlError.SqlError, R>
}

/** The non-retryable ConnectorError a failure is, if it is one. */
const nonRetryable = (cause: Cause.Cause<unknown>): ConnectorError.ConnectorError | undefined => {
  const error = Option.getOrUndefined(Cause.findErrorOption(cause))
  return error instanceof ConnectorError.ConnectorError && !error.retryable ? error : undefined
}

/** One line saying what failed: the ConnectorError's reason, or the cause's first line. */
const describe = (cause: Cause.Cause<unknown>) => {
  const error = Option.getOrUndefined(Cause.findErrorOption(cause))
  if (error instanceof ConnectorError.ConnectorError)
    return { reason: error.reason, what: `${error.reason}: ${error.message}` }
  const line = Cause.pretty(cause).split("\n")[0]
  return Cause.hasDies(cause)
    ? { reason: "defect", what: `defect: ${line}` }
    : { reason: "failure", what: line ?? "failure" }
}

/** The supervisor of source `id`; a paused source looks at its checkpoint every `pauseRetry`. */
export const make = Effect.fn("SourceSupervisor.make")(function* (options: {
  readonly id: string
  readonly pauseRetry: Duration.Input
  readonly checkpoints: Pick<CheckpointStoreShape, "getCheckpoint">
}) {
  const { id, checkpoints } = options
  const status = yield* SourceStatus
  const health = yield* StateHealth.StateHealth
  /** Restarts since the source last committed a checkpoint: the backoff's attempt number. */
  let restarts = 0

  /** Paused for `error` until the source's checkpoint changes: a reset is the operator's answer. */
  const pauseUntilReset = (error: ConnectorError.ConnectorError) =>
    Effect.gen(function* () {
      const hint =
        error.reason === "InvalidCheckpoint"
          ? `warden source checkpoint reset --source ${id} starts it afresh`
          : "fix it and restart the daemon"
      yield* status.set(id, { state: "paused", by: "source", reason: `${error.reason}: ${error.message} (${hint})` })
      yield* Effect.logError(`source paused: ${error.reason}: ${error.message}; ${hint}`)
      const stored = yield* checkpoints.getCheckpoint(id)
      while (true) {
        yield* Effect.sleep(options.pauseRetry)
        const now = yield* checkpoints.getCheckpoint(id).pipe(Effect.orElseSucceed(() => stored))
        if (Option.getOrUndefined(now) !== Option.getOrUndefined(stored)) break
      }
      yield* Effect.logInfo("the source's checkpoint changed: starting it again")
      restarts = 0
    })

  /** Restarted after `cause`, with backoff. */
  const restartAfter = (cause: Cause.Cause<unknown>) =>
    Effect.gen(function* () {
      restarts++
      const wait = Backoff.delay(restartBackoff, restarts)
      const { reason, what } = describe(cause)
      yield* Metric.update(Metric.withAttributes(Metrics.sourceRestarts, { source: id, reason }), 1)
      yield* status.set(id, {
        state: "restarting",
        attempt: restarts,
        reason: `stream failed: ${what}; restarting in ${Duration.format(wait)}`
      })
      // The state store down: its outage's line says so once (the restarts go on, with backoff).
      if (!health.covers(cause)) {
        yield* Effect.logError(`source stream failed (${what}); restart ${restarts} in ${Duration.format(wait)}`, cause)
      }
      yield* Effect.sleep(wait)
    })

  const run = <E, R>(start: Effect.Effect<unknown, E, R>): Effect.Effect<never, SqlError.SqlError, R> =>
    Effect.gen(function* () {
      while (true) {
        const exit = yield* Effect.exit(start)
        if (Exit.isSuccess(exit)) continue
        if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
        const paused = nonRetryable(exit.cause)
        yield* paused === undefined ? restartAfter(exit.cause) : pauseUntilReset(paused)
      }
    })

  return {
    committed: Effect.sync(() => {
      restarts = 0
    }),
    run
  } satisfies SourceSupervisor
})
