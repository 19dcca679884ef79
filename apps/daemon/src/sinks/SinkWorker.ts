/**
 * Drains one sink's outbox: the oldest due records first, in batches; delivered records leave the
 * outbox. A record refused for good (a permanent failure: a 4xx, a record that does not decode) moves
 * to the dead-letter table at once, with its error; one that failed otherwise is retried with backoff
 * for the sink's retry window (`retry.window`, 24 hours by default) from its first failure, then
 * dead-lettered. Runs as a cluster singleton per sink.
 *
 * A sink that fails a whole batch retryably (its receiver down, its disk full) is failing: one WARN line
 * when that starts and one INFO line when it delivers again (SinkOutage.ts); meanwhile it is tried one
 * batch at a time, at most a minute apart. The other failures are a line a minute (RepeatedWarnings.ts).
 * While the state store is down the worker waits: what it delivered then could not be forgotten
 * (StateHealth.ts). The loop is the one of the action executor (engine/OutboxDrainer.ts).
 */
import { Clock, Effect, Layer, Metric } from "effect"
import { Singleton } from "effect/cluster"
import { BatchesInFlight } from "../engine/BatchesInFlight.ts"
import * as Metrics from "../engine/Metrics.ts"
import * as OutboxDrainer from "../engine/OutboxDrainer.ts"
import { OutboxStore } from "../state/OutboxStore.ts"
import { StateHealth, warnUnlessOutage } from "../state/StateHealth.ts"
import { DEFAULT_RETRY_WINDOW_MILLIS, type Sink } from "./Sink.ts"
import * as SinkOutage from "./SinkOutage.ts"

/**
 * Longest time a stopping daemon spends delivering what is in the outbox (the rest is delivered at the
 * next start: the outbox is the crash record). Within the 10 s a shutdown is given.
 */
export const FINAL_DRAIN_MILLIS = 3_000

export { retryBackoff, retryDelayMillis } from "./SinkOutage.ts"

/**
 * Drains the outbox of `sink` until interrupted. Between looks it waits for a write to the outbox in this
 * process (WriteSignals), for its next retry to fall due, or for its look unasked (for another process's
 * writes), whichever comes first.
 */
export const run = (sink: Sink) =>
  Effect.gen(function* () {
    const store = yield* OutboxStore
    const health = yield* StateHealth
    const backlog = Metric.withAttributes(Metrics.backlog, { sink: sink.name })
    const oldestAge = Metric.withAttributes(Metrics.sinkOldestPendingAge, { sink: sink.name })
    const deadLetters = Metric.withAttributes(Metrics.sinkDeadLetters, { sink: sink.name })
    const window = sink.retryWindowMillis ?? DEFAULT_RETRY_WINDOW_MILLIS
    /**
     * Rows the sink has but the outbox could not forget (the state store refused the delete) are
     * forgotten first, before anything else is delivered, and never delivered again (`drainer.record`).
     * Before, they stayed due, and each retry appended them to the sink again while the state's disk was
     * full (issue 35).
     */
    const drainer = yield* OutboxDrainer.make({
      queue: "outbox",
      nextRetryAt: store.nextRetryAt(sink.name),
      operation: `sink ${sink.name}`,
      retryBackoff: SinkOutage.retryBackoff,
      stepFailed: "sink worker step failed",
      annotations: { sink: sink.name }
    })
    /** The sink failing (its receiver down, its disk full): one line when it starts, one when it ends. */
    const down = SinkOutage.make(sink.name, window)
    /** What fails now and then while the sink is up (one record refused, a step failing): a line a minute. */
    const warnings = drainer.warnings
    /**
     * The backlog gauge, from the outbox itself: set at start (0 included, so the series exists) and
     * after every step that changed it. New rows are due at once, so a step follows every insert.
     */
    const measure = Effect.gen(function* () {
      const { pending, oldest } = yield* store.sinkBacklog(sink.name)
      const now = yield* Clock.currentTimeMillis
      yield* Metric.update(backlog, pending)
      yield* Metric.update(oldestAge, oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000))
    })
    /**
     * While full batches stream through, the gauge is counted at most once a second: COUNT(*) walks the
     * sink's whole backlog, once per batch it cost more than the batch's own reads.
     */
    let measuredAt = 0
    /** A count was skipped since the last one: the gauge may be behind. */
    let stale = false
    const measureAfter = (full: boolean) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (full && now - measuredAt < 1_000) {
          stale = true
          return Effect.void
        }
        measuredAt = now
        stale = false
        return measure
      })
    // Not measured (the store down: its own line says so, so no warning of this one's): counted again
    // at the next step (stale).
    yield* measure.pipe(
      Effect.catchCause((cause) => {
        stale = true
        return warnUnlessOutage(health, "sink backlog not measured", cause)
      })
    )
    // Delivering and marking the rows delivered go together: a stop between the two left the rows in
    // the outbox, and the shutdown drain wrote them again (12 duplicate jsonl lines seen in a loaded CI
    // run). A delivery is bounded by the sink's own timeout, so a stop waits at most that long.
    const step = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        // A failing sink is tried one batch at a time, at its own pace: new records wait with the rest.
        const nextTry = down.nextTry()
        if (nextTry !== undefined && (yield* Clock.currentTimeMillis) < nextTry) {
          drainer.dueAt(nextTry)
          if (stale) yield* measureAfter(false)
          return false
        }
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
        const now = yield* Clock.currentTimeMillis
        const delivered: Array<string> = []
        for (let i = 0; i < rows.length; i++) if (results[i] === undefined) delivered.push(rows[i]!.id)
        // Nothing delivered and something worth retrying: the sink is failing (its outage's line, not a
        // line per record), and the batch is tried again at the outage's pace.
        const retryable = results.find((r) => r?.retryable === true)
        const failing = delivered.length === 0 && retryable !== undefined
        const since = rows.reduce<number | undefined>(
          (min, r) => (r.first_failed_at === null ? min : Math.min(min ?? r.first_failed_at, r.first_failed_at)),
          undefined
        )
        const probeAt = failing ? yield* down.failed(now, retryable.message, since) : undefined
        /** When a record's retry window ends: from its first failure, or the sink's (a record queued meanwhile). */
        const deadlineOf = (row: (typeof rows)[number]) => (row.first_failed_at ?? down.since() ?? now) + window
        // Every record of a failing batch past its window: the next batch is tried at once, not a minute
        // later (the outbox of a receiver gone for good drains into the dead letters at its own pace).
        const expired = failing && rows.every((r, i) => results[i]?.retryable !== true || now >= deadlineOf(r))
        if (expired) down.tryNow()
        // Forgotten first: a delivery the outbox could not forget would go again with the failed rows' retry.
        yield* drainer.record(store.markDelivered(delivered))
        if (delivered.length > 0)
          yield* down.delivered(
            now,
            Effect.map(store.sinkBacklog(sink.name), ({ pending }) => pending + delivered.length).pipe(
              Effect.orElseSucceed(() => delivered.length)
            )
          )
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i]!
          const failure = results[i]
          if (failure === undefined) continue
          yield* Metric.update(Metric.withAttributes(Metrics.sinkFailures, { sink: sink.name }), 1)
          const about = Effect.annotateLogs({ sink: sink.name, source: row.source, reference: row.reference })
          if (!failure.retryable || now >= deadlineOf(row)) {
            const error = failure.retryable
              ? `${failure.message} (retried for ${SinkOutage.formatSpan(window)}, the sink's retry.window)`
              : failure.message
            yield* store.deadLetter(row, error)
            yield* Metric.update(deadLetters, 1)
            yield* warnings
              .log(
                failure.retryable ? "window" : "refused",
                "Error",
                `delivery failed ${row.attempts + 1} time${row.attempts === 0 ? "" : "s"}; moved to dead letters: ${error}`
              )
              .pipe(about)
          } else {
            if (probeAt !== undefined) drainer.dueAt(probeAt)
            const retryAt = probeAt ?? drainer.retryAt(now, row.attempts + 1)
            yield* store.markAttemptFailed(row.id, failure.message, retryAt, down.since() ?? now)
            if (!failing)
              yield* warnings.log("retry", "Warn", `delivery failed, will retry: ${failure.message}`).pipe(about)
          }
        }
        yield* Metric.update(Metric.withAttributes(Metrics.sinkDelivered, { sink: sink.name }), delivered.length)
        yield* measureAfter(rows.length >= sink.batchSize && delivered.length === rows.length)
        // Fewer than a batch read: every record due then was in it, and one written since rang (the
        // pacer's wait ends at once), so the worker waits instead of a look that would find nothing
        // (one query per record at 100 checks/s, where every record had a step of its own).
        return (delivered.length > 0 && rows.length >= sink.batchSize) || expired
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
      yield* drainer.unrecorded.flushOnce
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
    return yield* drainer.run(step).pipe(Effect.onInterrupt(() => finalDrain))
  })

/** One singleton per sink. */
export const layer = (sinks: ReadonlyArray<Sink>) =>
  Layer.mergeAll(Layer.empty, ...sinks.map((sink) => Singleton.make(`warden/sink/${sink.name}`, run(sink))))
