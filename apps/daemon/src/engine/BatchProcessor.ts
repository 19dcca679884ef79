/**
 * Processes a batch of source events, in named steps: dedupe (Dedupe.ts), analyse (Analyse.ts), decide
 * and record (Policy.ts, Record.ts), signals (Signals.ts). This is the work the cluster entity does for
 * each persisted message; it is idempotent, because a message may be delivered again after a crash
 * (an unchanged redelivery costs no API call, a recorded version is never recorded twice, actions
 * are keyed by item version).
 *
 * Events of one reference are handled in order (rounds); different references concurrently (v1) or
 * as one legacy micro-batch per round. Batches are worked on several at once (the entity's
 * `batchesAtOnce`); one that holds a reference of an earlier batch still at work waits for it
 * (ReferenceOrder.ts).
 */
import { AnalyzeV1 } from "@warden/v1"
import { Context, Effect, Layer, Metric } from "effect"
import { unanalysed } from "../domain/Outcome.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import { FeedbackStore } from "../state/FeedbackStore.ts"
import { ItemStore } from "../state/ItemStore.ts"
import * as StateHealth from "../state/StateHealth.ts"
import * as Analyse from "./Analyse.ts"
import type * as BatchEvent from "./BatchEvent.ts"
import type { Handling } from "./Handling.ts"
import * as Dedupe from "./Dedupe.ts"
import type { EngineError } from "./EngineError.ts"
import { FeedbackService } from "./FeedbackService.ts"
import { LegacyAnalyzer } from "./LegacyAnalyzer.ts"
import * as Metrics from "./Metrics.ts"
import * as Recording from "./Record.ts"
import * as ReferenceOrder from "./ReferenceOrder.ts"
import * as Signals from "./Signals.ts"
import { SourceStatus } from "./SourceStatus.ts"

/** Per-batch counts, returned to the source as the acknowledgement. */
export interface Summary {
  readonly analysed: number
  readonly failed: number
  readonly unanalysed: number
  readonly unrecognised: number
  readonly unchanged: number
  readonly skipped: number
  readonly deleted: number
  readonly signals: number
}

/** Options shared by every source. */
export interface ProcessorOptions extends Recording.RecordOptions {
  /** v1 items analysed at once within a batch. */
  readonly concurrency: number
}

/** The batch processor. */
export interface BatchProcessorShape {
  /** Processes one batch of a source's events; fails when the API is unavailable or pauses the source. */
  readonly process: (
    settings: SourceSettings,
    events: ReadonlyArray<BatchEvent.BatchEvent>,
    how?: Handling
  ) => Effect.Effect<Summary, EngineError>
}

const make = (options: ProcessorOptions) =>
  Effect.gen(function* () {
    const items = yield* ItemStore
    const health = yield* StateHealth.StateHealth
    const v1 = yield* AnalyzeV1.AnalyzeV1
    const legacy = yield* LegacyAnalyzer
    const signals: Signals.SignalDeps = { items, feedbackLog: yield* FeedbackStore, feedback: yield* FeedbackService }
    const recording: Recording.RecordDeps = { items, sourceStatus: yield* SourceStatus, options }
    const order = ReferenceOrder.make()

    /** One round (at most one event per reference): deletes, signals, then dedupe, analyse, record. */
    const round = (
      settings: SourceSettings,
      events: ReadonlyArray<BatchEvent.BatchEvent>,
      how: Handling,
      counts: { -readonly [K in keyof Summary]: number }
    ) =>
      Effect.gen(function* () {
        const degraded = how.degraded
        const upserts: Array<BatchEvent.Upsert> = []
        for (const event of events) {
          if (event.kind === "delete") {
            yield* items.markDeleted(settings.id, event.reference).pipe(Effect.orDie)
            counts.deleted++
          } else if (event.kind === "reversal" || event.kind === "report") {
            counts.signals++
            yield* Signals.handle(signals, settings, event)
          } else upserts.push(event)
        }
        if (upserts.length === 0) return
        const latest = yield* items
          .latestVersions(
            settings.id,
            upserts.map((e) => e.reference)
          )
          .pipe(Effect.orDie)
        const work: Array<Dedupe.Work> = []
        for (const planned of Dedupe.plan(settings, upserts, latest, how)) {
          if (planned === "unchanged") counts.unchanged++
          else if (planned === "skipped") counts.skipped++
          else work.push(planned)
        }
        if (work.length === 0) return
        const record: Analyse.Recorder = (done) => Recording.recordAll(recording, settings, done)
        const statuses =
          degraded !== undefined
            ? yield* record(work.map((w) => [w, unanalysed(degraded)] as const))
            : settings.mode === "legacy"
              ? yield* Analyse.roundLegacy(legacy, settings, work, record)
              : yield* Analyse.roundV1(v1, options.concurrency, settings, work, record)
        for (const status of statuses) counts[status]++
      })

    /** A batch's rounds, in order. */
    const rounds = (settings: SourceSettings, events: ReadonlyArray<BatchEvent.BatchEvent>, how: Handling) =>
      Effect.gen(function* () {
        const counts = {
          analysed: 0,
          failed: 0,
          unanalysed: 0,
          unrecognised: 0,
          unchanged: 0,
          skipped: 0,
          deleted: 0,
          signals: 0
        }
        yield* Metric.update(Metric.withAttributes(Metrics.itemsIn, { source: settings.id }), events.length)
        for (const batchRound of Dedupe.rounds(events)) yield* round(settings, batchRound, how, counts)
        return counts
      })

    const process = (
      settings: SourceSettings,
      events: ReadonlyArray<BatchEvent.BatchEvent>,
      how: Handling = {}
    ): Effect.Effect<Summary, EngineError> =>
      order
        .inOrder(
          events.map((event) => `${settings.id}\u001f${event.reference}`),
          rounds(settings, events, how)
        )
        .pipe(
          // A batch whose verdicts the store refused is replayed by the entity until they are recorded:
          // one of the source's writes (StateHealth.sourceWrites), so the outage names it and ends with it.
          health.observe(StateHealth.sourceWrites(settings.id)),
          // One span per batch (OTLP when configured): ids and counts only, never content.
          Effect.withSpan("BatchProcessor.process", {
            attributes: {
              "warden.source": settings.id,
              "warden.mode": settings.mode,
              "warden.batch.size": events.length
            }
          })
        )

    return BatchProcessor.of({ process })
  })

/** The batch processor service. */
export class BatchProcessor extends Context.Service<BatchProcessor, BatchProcessorShape>()(
  "@warden/daemon/BatchProcessor"
) {
  /** The processor on the state stores and the API clients in context. */
  static readonly layer = (options: ProcessorOptions) => Layer.effect(BatchProcessor, make(options))
}
