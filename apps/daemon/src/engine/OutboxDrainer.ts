/**
 * The loop of the daemon's two outbox workers, the sinks' (sinks/SinkWorker.ts) and the platform
 * actions' (engine/ActionExecutor.ts): each takes the due rows of its queue, delivers them outside the
 * daemon, records each outcome, and schedules a failed row's retry with backoff. What the two share is
 * here; what a row is and what delivering it means is theirs (their `step`).
 *
 * A look at the queue (`step`, true when it did something) runs after the outcomes the state store
 * refused before are recorded ({@link Drainer.record}), and once the store takes writes for the other
 * operations (StateHealth.pausedFor: a delivery that could not then be recorded would go again). After
 * an idle look the drainer waits for a write to its queue in this process (WriteSignals), for the
 * soonest retry it scheduled, or for its look unasked, whichever comes first; after a busy one it looks
 * again at once. A failed look is logged (a line a minute, RepeatedWarnings; none while the store's
 * outage line says it) and the next comes {@link STEP_FAILURE_PAUSE_MILLIS} later, so a failing queue
 * never spins. It runs until interrupted. Why our own worker rather than a queue library:
 * docs/DECISIONS.md ("The outbox workers are our own").
 */
import { Backoff } from "@warden/connector"
import { Effect, type Option } from "effect"
import type * as PendingWrites from "../state/PendingWrites.ts"
import * as RepeatedWarnings from "../state/RepeatedWarnings.ts"
import { StateHealth } from "../state/StateHealth.ts"
import * as WriteSignals from "../state/WriteSignals.ts"

/** The pause after a failed look at the queue (a query that failed, a defect of the step). */
export const STEP_FAILURE_PAUSE_MILLIS = 1_000

/**
 * Delay before retry `attempt` (1-based) of a row: the connector SDK's one backoff without its jitter
 * (the attempt count lives in the row), or the receiver's own retry-after when longer.
 */
export const retryDelayMillis = (backoff: Backoff.Backoff, attempt: number, retryAfterMillis?: number): number =>
  Math.max(retryAfterMillis ?? 0, Backoff.baseMillis(backoff, attempt))

/** What a drainer is of. */
export interface Options<E, R> {
  /** The queue's doorbell (WriteSignals). */
  readonly queue: "outbox" | "actions"
  /** The soonest retry the queue already holds (rows an earlier process failed). */
  readonly nextRetryAt: Effect.Effect<Option.Option<number>, E, R>
  /** Its reads and records, as the state store's health counts them (`sink jsonl`, `actions feed`). */
  readonly operation: string
  /** The backoff of a failed row's retries. */
  readonly retryBackoff: Backoff.Backoff
  /** Its failed look's log line (`sink worker step failed`). */
  readonly stepFailed: string
  /** Annotations of that line (`{ sink: "jsonl" }`). */
  readonly annotations: Record<string, string>
}

/** A drainer of one queue, for its `step`. */
export interface Drainer {
  /**
   * Schedules a row that failed at `now` (epoch milliseconds of the `Clock`) for retry `attempt`
   * (1-based, {@link retryDelayMillis}): its retry time, at which the drainer looks again.
   */
  readonly retryAt: (now: number, attempt: number, retryAfterMillis?: number) => number
  /** The drainer looks again at `at` (a retry paced otherwise: a failing sink's next probe). */
  readonly dueAt: (at: number) => void
  /**
   * Records an outcome already done outside the daemon (a batch delivered, an action run). One the
   * store refuses is kept, written before the next look (PendingWrites.ts), and fails this.
   */
  readonly record: (write: Effect.Effect<void, unknown>) => Effect.Effect<void, unknown>
  /** The outcomes the store refused, for a stopping worker's last try (`flushOnce`). */
  readonly unrecorded: PendingWrites.PendingWrites
  /** Its warnings, a line a minute per key (its failed looks are key `step`). */
  readonly warnings: RepeatedWarnings.RepeatedWarnings
  /** Runs `step` (true when it did something) over and over, as the module header says, until interrupted. */
  readonly run: <E, R>(step: Effect.Effect<boolean, E, R>) => Effect.Effect<never, never, R>
}

/** A drainer of `options.queue`, in the process's StateHealth and WriteSignals. */
export const make = <E, R>(options: Options<E, R>) =>
  Effect.gen(function* () {
    const health = yield* StateHealth
    const looks = yield* WriteSignals.pacer(options.queue, options.nextRetryAt)
    const unrecorded = health.pending(options.operation)
    const warnings = RepeatedWarnings.make()
    const drainer: Drainer = {
      retryAt: (now, attempt, retryAfterMillis) => {
        const at = now + retryDelayMillis(options.retryBackoff, attempt, retryAfterMillis)
        looks.dueAt(at)
        return at
      },
      dueAt: looks.dueAt,
      record: (write) =>
        Effect.catchCause(write, (cause) => {
          unrecorded.add(write)
          return Effect.failCause(cause)
        }),
      unrecorded,
      warnings,
      run: (step) =>
        unrecorded.flush.pipe(
          Effect.andThen(health.pausedFor(options.operation)),
          Effect.andThen(health.observe(options.operation)(step)),
          Effect.flatMap((busy) => (busy ? Effect.void : looks.nextLook)),
          Effect.catchCause((cause) =>
            (health.covers(cause)
              ? Effect.void
              : warnings.log("step", "Error", options.stepFailed, cause).pipe(Effect.annotateLogs(options.annotations))
            ).pipe(Effect.andThen(Effect.sleep(STEP_FAILURE_PAUSE_MILLIS)))
          ),
          Effect.forever
        )
    }
    return drainer
  })
