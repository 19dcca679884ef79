/**
 * Sends a source's batch until it is acknowledged: a pause or an outage holds the source (or, past
 * the failure-mode delay, records the items unanalysed: ApiHealth.ts), never drops them. Waits on the
 * fiber's `Clock`.
 */
import { Backoff, type Checkpoint, SourceEvent } from "@warden/connector"
import { Cause, Duration, Effect, Exit, Metric } from "effect"
import * as StateHealth from "../state/StateHealth.ts"
import type { ApiHealth } from "./ApiHealth.ts"
import * as BatchEvent from "./BatchEvent.ts"
import type { BatchSender } from "./BatchSender.ts"
import * as Metrics from "./Metrics.ts"
import { SourceStatus } from "./SourceStatus.ts"

/** A source's dispatch of its batches. */
export interface BatchDispatch {
  /**
   * Sends the item events of `chunk` until they are acknowledged; answers the chunk's last checkpoint,
   * to commit. A chunk of `progress` events only (a poll that found nothing) is not sent.
   */
  readonly dispatch: (chunk: ReadonlyArray<SourceEvent.Positioned>) => Effect.Effect<Checkpoint.Checkpoint | undefined>
}

/** A field of a failure, whatever the failure is (an error of ours, the cluster's, a defect). */
const fieldOf = (error: unknown, key: string): unknown =>
  typeof error === "object" && error !== null ? Reflect.get(error, key) : undefined

/** What a failed send's cause says: its tag, a line for the log, and a reason for the status. */
const failureOf = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  const message = fieldOf(error, "message") ?? String(error)
  const code = fieldOf(error, "code")
  return {
    tag: fieldOf(error, "_tag"),
    message,
    // The reason without the "source X paused:" of the message: /readyz names the source and the state.
    reason: code === undefined ? String(message) : `${code} (${fieldOf(error, "detail")})`
  }
}

/** The dispatch of source `id`'s batches through `sender`, in the failure mode `api` keeps. */
export const make = Effect.fn("BatchDispatch.make")(function* <E>(options: {
  readonly id: string
  readonly sender: BatchSender<E>
  readonly api: ApiHealth
  /** How often a paused source tries again; also the longest wait of a batch handed back. */
  readonly pauseRetry: Duration.Input
}) {
  const { id, sender, api } = options
  const status = yield* SourceStatus
  const health = yield* StateHealth.StateHealth
  const writes = StateHealth.sourceWrites(id)
  const pauseRetry = Duration.fromInputUnsafe(options.pauseRetry)
  /** Backoff of a batch handed back (the API unavailable): 500 ms doubling up to the pause retry. */
  const handBackBackoff: Backoff.Backoff = { initial: Duration.min(Duration.millis(500), pauseRetry), max: pauseRetry }
  const retried = Metric.update(Metric.withAttributes(Metrics.batchRetries, { source: id }), 1)

  /** The batch went through: a real try (not degraded) is the API answering. */
  const acknowledged = (degraded: "allow" | "reject" | undefined) =>
    Effect.gen(function* () {
      yield* health.recovered(writes)
      if (degraded !== undefined) return
      if (yield* api.answered) yield* Effect.logInfo("the API answers again")
      yield* status.set(id, { state: "running" })
    })

  /** The batch was handed back for `cause`: says so, and answers how long to wait before the next attempt. */
  const handedBack = (cause: Cause.Cause<unknown>, attempt: number) =>
    Effect.gen(function* () {
      if ((yield* health.report(writes, cause)) !== undefined) {
        // The state store is down: its outage's line says so once, and the batch is sent again on
        // the store's backoff (up to 5 s), so the source resumes soon after the store is back.
        yield* retried
        return Backoff.delay(StateHealth.retryBackoff, attempt)
      }
      const { tag, message, reason } = failureOf(cause)
      if (tag === "SourcePaused") {
        yield* status.set(id, { state: "paused", by: "api", reason })
        if (yield* api.pauseLogDue) {
          yield* Effect.logError(`source paused: ${message}; retrying every ${Duration.format(pauseRetry)}`)
        }
        return pauseRetry
      }
      if (tag === "ApiUnavailable") {
        yield* api.unavailable
        yield* status.set(id, { state: "api-unavailable", reason })
      }
      yield* retried
      yield* Effect.logWarning(`batch handed back: ${message}`).pipe(Effect.annotateLogs({ attempt }))
      return Backoff.delay(handBackBackoff, attempt)
    })

  const sendUntilAcknowledged = (events: ReadonlyArray<BatchEvent.BatchEvent>) =>
    Effect.gen(function* () {
      let attempt = 0
      let tried = false
      while (true) {
        const degraded: "allow" | "reject" | undefined = yield* api.degradedNow(tried)
        const exit = yield* Effect.exit(sender.send(events, { degraded }))
        tried = degraded === undefined
        if (tried) yield* api.tried
        if (Exit.isSuccess(exit)) return yield* acknowledged(degraded)
        attempt++
        yield* Effect.sleep(yield* handedBack(exit.cause, attempt))
      }
    })

  return {
    dispatch: (chunk) =>
      Effect.suspend(() => {
        const items = chunk.filter(SourceEvent.isItemEvent)
        const checkpoint = chunk.at(-1)?.checkpoint
        if (items.length === 0) return Effect.succeed(checkpoint)
        return Effect.as(sendUntilAcknowledged(items.map(BatchEvent.fromSourceEvent)), checkpoint)
      }).pipe(Effect.annotateLogs({ source: id }))
  } satisfies BatchDispatch
})
