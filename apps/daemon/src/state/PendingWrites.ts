/**
 * Outcomes already done outside the daemon (a batch appended to a sink, an action run on a platform)
 * whose record the state store refused (its disk full, its server gone). They are written first, before
 * the worker does anything else, and retried until the store takes them: a delivery the outbox could
 * not forget was otherwise delivered again at every retry (issue 35: 760 to 1,520 duplicate jsonl lines
 * while an SQLite disk was full), an action run again. The sink worker and the action executor both
 * drain one, in their one loop (engine/OutboxDrainer.ts). They are kept by the store's health, per
 * operation, for the process's life (StateHealth.pending): a worker stopped and started again in the same process
 * (its singleton let go while the shard locks could not be refreshed, a source restarted) finds them.
 */
import { Effect } from "effect"

/** How a kept record is written: retried while the store is down, or tried once (StateHealth). */
export interface Writer {
  readonly untilWritten: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly once: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Records of outcomes waiting for the store. */
export interface PendingWrites {
  /** Keeps `write` (the record of an outcome the store refused) for {@link flush}. */
  readonly add: (write: Effect.Effect<void, unknown>) => void
  /**
   * Writes what is kept, oldest first, each retried while the store is down (StateHealth.untilWritten,
   * as `operation`); interruptible between retries. A failure that is not the store's fails the flush
   * and keeps the rest.
   */
  readonly flush: Effect.Effect<void, unknown>
  /**
   * Writes what is kept, oldest first, each tried once (a stopping worker: the store may still be
   * down, and the stop has a deadline); what the store refuses stays, and fails this.
   */
  readonly flushOnce: Effect.Effect<void, unknown>
  /** How many records wait. */
  readonly size: () => number
}

/** An empty list, written by `writer`. */
export const make = (writer: Writer): PendingWrites => {
  const waiting: Array<Effect.Effect<void, unknown>> = []
  /** Writes the oldest first, each as `attempt` runs it, until none is left or one fails. */
  const drain = (attempt: (write: Effect.Effect<void, unknown>) => Effect.Effect<void, unknown>) =>
    Effect.whileLoop({
      while: () => waiting.length > 0,
      body: () => attempt(waiting[0]!).pipe(Effect.tap(() => Effect.sync(() => waiting.shift()))),
      step: () => undefined
    })
  return {
    add: (write) => {
      waiting.push(write)
    },
    flush: drain(writer.untilWritten),
    flushOnce: drain(writer.once),
    size: () => waiting.length
  }
}
