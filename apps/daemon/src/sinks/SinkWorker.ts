/**
 * Drains one sink's outbox: the oldest due records first, in batches; delivered records leave the
 * outbox, failed ones are retried with exponential backoff, and after `maxAttempts` they move to the
 * dead-letter table (visible with their last error). Runs as a cluster singleton per sink.
 */
import { Backoff } from "@warden/connector"
import { Duration, Effect, Layer, Metric } from "effect"
import { Singleton } from "effect/cluster"
import { BatchesInFlight } from "../engine/BatchesInFlight.ts"
import * as Metrics from "../engine/Metrics.ts"
import { OutboxStore } from "../state/OutboxStore.ts"
import * as WriteSignals from "../state/WriteSignals.ts"
import type { Sink } from "./Sink.ts"

/**
 * Longest time a stopping daemon spends delivering what is in the outbox (the rest is delivered at the
 * next start: the outbox is the crash record). Within the 10 s a shutdown is given.
 */
export const FINAL_DRAIN_MILLIS = 3_000

/** Backoff of a failed delivery: 500 ms doubling up to 5 minutes. */
export const retryBackoff: Backoff.Backoff = { initial: Duration.millis(500), max: Duration.minutes(5) }

/**
 * Delay before retry `attempt` (1-based) of a failed delivery: the connector SDK's one backoff, without
 * its jitter (the attempt count lives in the outbox row, so the delay is computed, not scheduled).
 */
export const retryDelayMillis = (attempt: number): number => Backoff.baseMillis(retryBackoff, attempt)

/**
 * Drains the outbox of `sink` until interrupted. Between looks it waits for a write to the outbox in this
 * process (WriteSignals), for its next retry to fall due, or for its look unasked (for another process's
 * writes), whichever comes first.
 */
export const run = (sink: Sink) =>
  Effect.gen(function* () {
    const store = yield* OutboxStore
    const looks = yield* WriteSignals.pacer("outbox", store.nextRetryAt(sink.name))
    const backlog = Metric.withAttributes(Metrics.backlog, { sink: sink.name })
    /**
     * The backlog gauge, from the outbox itself: set at start (0 included, so the series exists) and
     * after every step that changed it. New rows are due at once, so a step follows every insert.
     */
    const measure = Effect.flatMap(store.sinkBacklog(sink.name), (n) => Metric.update(backlog, n))
    /**
     * While full batches stream through, the gauge is counted at most once a second: COUNT(*) walks the
     * sink's whole backlog, once per batch it cost more than the batch's own reads.
     */
    let measuredAt = 0
    /** A count was skipped since the last one: the gauge may be behind. */
    let stale = false
    const measureAfter = (full: boolean) =>
      Effect.suspend(() => {
        const now = Date.now()
        if (full && now - measuredAt < 1_000) {
          stale = true
          return Effect.void
        }
        measuredAt = now
        stale = false
        return measure
      })
    yield* measure.pipe(Effect.catchCause((cause) => Effect.logWarning("sink backlog not measured", cause)))
    // Delivering and marking the rows delivered go together: a stop between the two left the rows in
    // the outbox, and the shutdown drain wrote them again (12 duplicate jsonl lines seen in a loaded CI
    // run). A delivery is bounded by the sink's own timeout, so a stop waits at most that long.
    const step = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const rows = yield* restore(store.pendingOutbox(sink.name, sink.batchSize))
        if (rows.length === 0) {
          if (stale) yield* measureAfter(false)
          return false
        }
        // One span per delivered batch (not per record), whatever the sink's type.
        // Each record as its JSON text (QueuedRecord.ts): sinks that need its fields decode it.
        const records = rows.map((r) => ({
          source: r.source,
          reference: r.reference,
          version: r.version,
          json: r.payload
        }))
        const results = yield* sink.deliver(records).pipe(
          Effect.withSpan("Sink.deliver", {
            attributes: { "warden.sink": sink.name, "warden.sink.type": sink.type, "warden.batch.size": rows.length }
          })
        )
        const delivered: Array<string> = []
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i]!
          const error = results[i]
          if (error === undefined) {
            delivered.push(row.id)
            continue
          }
          yield* Metric.update(Metric.withAttributes(Metrics.sinkFailures, { sink: sink.name }), 1)
          if (row.attempts + 1 >= sink.maxAttempts) {
            yield* store.deadLetter(row, error)
            yield* Effect.logError(`delivery failed ${row.attempts + 1} times; moved to dead letters: ${error}`).pipe(
              Effect.annotateLogs({ sink: sink.name, source: row.source, reference: row.reference })
            )
          } else {
            const retryAt = Date.now() + retryDelayMillis(row.attempts + 1)
            looks.dueAt(retryAt)
            yield* store.markAttemptFailed(row.id, error, retryAt)
            yield* Effect.logWarning(`delivery failed, will retry: ${error}`).pipe(
              Effect.annotateLogs({ sink: sink.name, source: row.source, reference: row.reference })
            )
          }
        }
        yield* store.markDelivered(delivered)
        yield* Metric.update(Metric.withAttributes(Metrics.sinkDelivered, { sink: sink.name }), delivered.length)
        yield* measureAfter(rows.length >= sink.batchSize && delivered.length === rows.length)
        return delivered.length > 0
      })
    )
    const inFlight = yield* BatchesInFlight
    /**
     * At shutdown: deliver what was recorded, so verdicts the daemon paid for reach the sink before it
     * exits (issue 19). The batches interrupted at the same moment record what they analysed as they
     * stop (after their calls on the wire answer): the drain starts once they are done, and an empty
     * outbox is looked at once more after a short pause (a batch of another runner may be recording).
     */
    const finalDrain = Effect.gen(function* () {
      yield* inFlight.settled
      let quiet = 0
      while (quiet < 2) {
        if (yield* step) quiet = 0
        else {
          quiet++
          if (quiet < 2) yield* Effect.sleep(100)
        }
      }
    }).pipe(
      Effect.interruptible,
      Effect.timeout(FINAL_DRAIN_MILLIS),
      Effect.catchCause((cause) =>
        Effect.logWarning("delivering the outbox at shutdown stopped; the rest goes at the next start", cause).pipe(
          Effect.annotateLogs({ sink: sink.name })
        )
      )
    )
    return yield* step.pipe(
      Effect.flatMap((busy) => (busy ? Effect.void : looks.nextLook)),
      Effect.catchCause((cause) =>
        Effect.logError("sink worker step failed", cause).pipe(
          Effect.annotateLogs({ sink: sink.name }),
          Effect.andThen(Effect.sleep("1 second"))
        )
      ),
      Effect.forever,
      Effect.onInterrupt(() => finalDrain)
    )
  })

/** One singleton per sink. */
export const layer = (sinks: ReadonlyArray<Sink>) =>
  Layer.mergeAll(Layer.empty, ...sinks.map((sink) => Singleton.make(`warden/sink/${sink.name}`, run(sink))))
