/**
 * Drains one sink's outbox: the oldest due records first, in batches; delivered records leave the
 * outbox, failed ones are retried with exponential backoff, and after `maxAttempts` they move to the
 * dead-letter table (visible with their last error). Runs as a cluster singleton per sink.
 *
 * A sink that refuses whole batches (its disk full) is down: one line when that starts and one when it
 * delivers again (Outage.ts), the other failures a line a minute (RepeatedWarnings.ts). While the state
 * store is down the worker waits: what it delivered then could not be forgotten (StateHealth.ts).
 */
import { Backoff } from "@warden/connector"
import { DeliveryResult } from "@warden/sink"
import { Duration, Effect, Exit, Layer, Metric } from "effect"
import { Singleton } from "effect/cluster"
import { BatchesInFlight } from "../engine/BatchesInFlight.ts"
import * as Metrics from "../engine/Metrics.ts"
import { OutboxStore } from "../state/OutboxStore.ts"
import * as Outage from "../state/Outage.ts"
import * as RepeatedWarnings from "../state/RepeatedWarnings.ts"
import { StateHealth } from "../state/StateHealth.ts"
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
    const health = yield* StateHealth
    const looks = yield* WriteSignals.pacer("outbox", store.nextRetryAt(sink.name))
    const backlog = Metric.withAttributes(Metrics.backlog, { sink: sink.name })
    /** This sink's reads and acknowledgements, as the state store's health counts them. */
    const acks = `sink ${sink.name}`
    /** The sink itself down (its disk full, its endpoint gone): one line when it starts, one when it ends. */
    const down = Outage.make({
      down: (problem) =>
        `sink ${sink.name} cannot deliver: ${problem.text}; its verdicts wait in the outbox and are retried with backoff`,
      up: (_, seconds, failures) =>
        `sink ${sink.name} delivers again, after ${seconds} s and ${failures} failed batch${failures === 1 ? "" : "es"}`,
      annotations: { sink: sink.name }
    })
    /** What fails now and then while the sink is up (one record refused, a step failing): a line a minute. */
    const warnings = RepeatedWarnings.make()
    /**
     * Rows the sink has but the outbox could not forget (the state store refused the delete): forgotten
     * first, before anything else is delivered, and never delivered again. Before, they stayed due, and
     * each retry appended them to the sink again while the state's disk was full (issue 35).
     */
    const unacknowledged = health.pending(acks)
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
        for (let i = 0; i < rows.length; i++) if (results[i]?._tag === "Delivered") delivered.push(rows[i]!.id)
        // The whole batch refused for now for one reason is the sink being down: its outage's line, not
        // a line per record.
        const reasons = results.map((r) => (r._tag === "Retryable" ? r.reason : undefined))
        const whole = delivered.length === 0 && reasons.every((r) => r === reasons[0]) ? reasons[0] : undefined
        if (whole !== undefined) yield* down.failed("deliveries", { text: whole })
        else yield* down.recovered("deliveries")
        // Forgotten first: a delivery the outbox could not forget would go again with the failed rows' retry.
        const forgotten = yield* Effect.exit(store.markDelivered(delivered))
        if (Exit.isFailure(forgotten)) {
          unacknowledged.add(store.markDelivered(delivered))
          return yield* Effect.failCause(forgotten.cause)
        }
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i]!
          // A sink that answered fewer results than records: the rest failed for now.
          const result = results[i] ?? DeliveryResult.retryable("the sink gave no result for this record")
          if (result._tag === "Delivered") continue
          const error = result.reason
          yield* Metric.update(Metric.withAttributes(Metrics.sinkFailures, { sink: sink.name }), 1)
          const about = Effect.annotateLogs({ sink: sink.name, source: row.source, reference: row.reference })
          // A record refused for good (a 4xx, a subject no stream takes) is not retried.
          if (result._tag === "Permanent") {
            yield* store.deadLetter(row, error)
            yield* warnings.log("dead-letter", "Error", `delivery refused; moved to dead letters: ${error}`).pipe(about)
          } else if (row.attempts + 1 >= sink.maxAttempts) {
            yield* store.deadLetter(row, error)
            yield* warnings
              .log("dead-letter", "Error", `delivery failed ${row.attempts + 1} times; moved to dead letters: ${error}`)
              .pipe(about)
          } else {
            const retryAt = Date.now() + retryDelayMillis(row.attempts + 1)
            looks.dueAt(retryAt)
            yield* store.markAttemptFailed(row.id, error, retryAt)
            if (whole === undefined)
              yield* warnings.log("retry", "Warn", `delivery failed, will retry: ${error}`).pipe(about)
          }
        }
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
     * Nothing is delivered while the state store is down: it could not be forgotten.
     */
    const finalDrain = Effect.gen(function* () {
      yield* unacknowledged.flushOnce
      yield* inFlight.settled
      if (health.problem() !== undefined) return
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
        // The state store down: its outage's line says it. What the sink has and the outbox could not
        // forget is delivered again at the next start (at-least-once, records carry their version).
        (health.covers(cause) ? Effect.logDebug : Effect.logWarning)(
          "delivering the outbox at shutdown stopped; the rest goes at the next start",
          cause
        ).pipe(Effect.annotateLogs({ sink: sink.name }))
      )
    )
    // While the state store is down for other writes than its own, the worker waits: a delivery it
    // could not then forget would be delivered again (StateHealth.pausedFor).
    return yield* unacknowledged.flush.pipe(
      Effect.andThen(health.pausedFor(acks)),
      Effect.andThen(health.observe(acks)(step)),
      Effect.flatMap((busy) => (busy ? Effect.void : looks.nextLook)),
      Effect.catchCause((cause) =>
        (health.covers(cause)
          ? Effect.void
          : warnings
              .log("step", "Error", "sink worker step failed", cause)
              .pipe(Effect.annotateLogs({ sink: sink.name }))
        ).pipe(Effect.andThen(Effect.sleep("1 second")))
      ),
      Effect.forever,
      Effect.onInterrupt(() => finalDrain)
    )
  })

/** One singleton per sink. */
export const layer = (sinks: ReadonlyArray<Sink>) =>
  Layer.mergeAll(Layer.empty, ...sinks.map((sink) => Singleton.make(`warden/sink/${sink.name}`, run(sink))))
