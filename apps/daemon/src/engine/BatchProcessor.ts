/**
 * Processes a batch of source events: dedupe, analyse, persist, queue for the sinks. This is the work
 * the cluster entity does for each persisted message; it is idempotent, because a message may be
 * delivered again after a crash (an unchanged redelivery costs no API call, a recorded version is
 * never recorded twice).
 *
 * Events of one reference are handled in order; different references concurrently (v1) or as one
 * legacy micro-batch per round.
 */
import type { SourceEvent } from "@warden/connector"
import { AnalyzeV1 } from "@warden/v1"
import { Context, Effect, Layer, Metric, Option } from "effect"
import { StateStore } from "../state/StateStore.ts"
import { analyseV1, failedOutcome } from "./Analyzer.ts"
import * as ContentHash from "./ContentHash.ts"
import type { EngineError } from "./EngineError.ts"
import { LegacyAnalyzer } from "./LegacyAnalyzer.ts"
import * as Metrics from "./Metrics.ts"
import type { Outcome } from "./Outcome.ts"
import * as RequestBuilder from "./RequestBuilder.ts"
import type { SourceSettings } from "./SourceSettings.ts"
import * as VerdictRecord from "./VerdictRecord.ts"

/** Per-batch counts, returned to the source as the acknowledgement. */
export interface Summary {
  readonly analysed: number
  readonly failed: number
  readonly unchanged: number
  readonly skipped: number
  readonly deleted: number
}

/** Options shared by every source. */
export interface ProcessorOptions {
  /** Names of every configured sink: each verdict is queued for each. */
  readonly sinks: ReadonlyArray<string>
  /** Whether sinks may receive the content text (`log.content: true`). */
  readonly includeContent: boolean
  /** v1 items analysed at once within a batch. */
  readonly concurrency: number
}

/** Splits events into rounds holding at most one event per reference, keeping each reference's order. */
export const rounds = <E extends { readonly reference: string }>(events: ReadonlyArray<E>): Array<Array<E>> => {
  const out: Array<Array<E>> = []
  const depth = new Map<string, number>()
  for (const event of events) {
    const d = depth.get(event.reference) ?? 0
    depth.set(event.reference, d + 1)
    const round = out[d]
    if (round === undefined) out.push([event])
    else round.push(event)
  }
  return out
}

type Work = {
  readonly event: SourceEvent.Upsert
  readonly version: number
  readonly contentHash: string
}

const make = (options: ProcessorOptions) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const v1 = yield* AnalyzeV1.AnalyzeV1
    const legacy = yield* LegacyAnalyzer

    /** Decides whether an upsert needs analysing, and as which version. */
    const plan = (settings: SourceSettings, event: SourceEvent.Upsert) =>
      Effect.gen(function* () {
        const contentHash = ContentHash.of(event.content)
        const latest = yield* store.latestVersion(settings.id, event.reference)
        if (Option.isSome(latest) && latest.value.contentHash === contentHash) return "unchanged" as const
        if (!settings.analyse.has(event.content.type)) return "skipped" as const
        return { event, version: Option.isSome(latest) ? latest.value.version + 1 : 1, contentHash } satisfies Work
      })

    const record = (settings: SourceSettings, work: Work, outcome: Outcome) => {
      const analysedAt = new Date().toISOString()
      const { event } = work
      const payload = VerdictRecord.fromOutcome({
        source: settings.id,
        reference: event.reference,
        version: work.version,
        contentType: event.content.type,
        mode: settings.mode,
        outcome,
        permalink: event.permalink,
        text: options.includeContent && event.content.type === "text" ? event.content.text : undefined,
        analysedAt,
        dryRun: settings.dryRun
      })
      const { checkpoint: _checkpoint, ...eventWithoutCheckpoint } = event
      return store
        .recordItem(
          {
            source: settings.id,
            reference: event.reference,
            version: work.version,
            contentHash: work.contentHash,
            contentType: event.content.type,
            status: outcome.status,
            mode: settings.mode,
            endpoint: outcome.endpoint,
            request: outcome.request,
            response: outcome.status === "analysed" ? outcome.response : undefined,
            verdict: outcome.status === "analysed" ? outcome.verdict : undefined,
            error: outcome.status === "failed" ? outcome.error : undefined,
            segments: outcome.status === "analysed" ? outcome.segments : [],
            event: JSON.stringify(eventWithoutCheckpoint),
            analysedAt,
            createdAt: Date.now()
          },
          options.sinks,
          JSON.stringify(payload)
        )
        .pipe(
          Effect.tap(
            (inserted): Effect.Effect<unknown> =>
              inserted
                ? Effect.all([
                    Metric.update(
                      Metric.withAttributes(Metrics.itemsOut, { source: settings.id, status: outcome.status }),
                      1
                    ),
                    outcome.status === "analysed"
                      ? Metric.update(
                          Metric.withAttributes(Metrics.verdicts, {
                            type: outcome.verdict.type ?? "UNKNOWN",
                            severity: outcome.verdict.severity ?? "UNKNOWN"
                          }),
                          1
                        )
                      : Effect.void
                  ])
                : Effect.void
          ),
          Effect.orDie,
          Effect.as(outcome.status)
        )
    }

    const analyseRoundV1 = (settings: SourceSettings, work: ReadonlyArray<Work>) =>
      Effect.forEach(
        work,
        (w) => {
          const prepared = RequestBuilder.v1Bodies(settings, w.event)
          const outcome: Effect.Effect<Outcome, EngineError> =
            prepared._tag === "Rejected"
              ? Effect.succeed(failedOutcome(undefined, undefined, rejectedError(prepared)))
              : analyseV1(v1, settings.id, prepared)
          return Effect.flatMap(outcome, (o) => record(settings, w, o))
        },
        { concurrency: options.concurrency }
      )

    const analyseRoundLegacy = (settings: SourceSettings, work: ReadonlyArray<Work>) =>
      Effect.gen(function* () {
        const prepared = work.map((w) => ({ work: w, messages: RequestBuilder.legacyMessages(settings, w.event) }))
        const sendable = prepared.flatMap((p) =>
          Array.isArray(p.messages) ? [{ key: p.work.event.reference, messages: p.messages }] : []
        )
        const outcomes = yield* legacy.analyse(settings.id, settings.channelId, sendable)
        return yield* Effect.forEach(prepared, (p) =>
          record(
            settings,
            p.work,
            Array.isArray(p.messages)
              ? (outcomes.get(p.work.event.reference) ??
                  failedOutcome("/api/analyze", undefined, {
                    _tag: "MissingResult",
                    message: "no result for this message"
                  }))
              : failedOutcome(undefined, undefined, rejectedError(p.messages as RequestBuilder.Rejected))
          )
        )
      })

    const process = (
      settings: SourceSettings,
      events: ReadonlyArray<SourceEvent.ItemEvent>
    ): Effect.Effect<Summary, EngineError> =>
      Effect.gen(function* () {
        let unchanged = 0
        let skipped = 0
        let deleted = 0
        let analysed = 0
        let failed = 0
        yield* Metric.update(Metric.withAttributes(Metrics.itemsIn, { source: settings.id }), events.length)
        for (const round of rounds(events)) {
          const work: Array<Work> = []
          for (const event of round) {
            if (event.kind === "delete") {
              yield* store.markDeleted(settings.id, event.reference).pipe(Effect.orDie)
              deleted++
              continue
            }
            if (event.kind !== "upsert") continue
            const planned = yield* plan(settings, event).pipe(Effect.orDie)
            if (planned === "unchanged") unchanged++
            else if (planned === "skipped") skipped++
            else work.push(planned)
          }
          if (work.length === 0) continue
          const statuses =
            settings.mode === "legacy"
              ? yield* analyseRoundLegacy(settings, work)
              : yield* analyseRoundV1(settings, work)
          for (const status of statuses) {
            if (status === "failed") failed++
            else analysed++
          }
        }
        return { analysed, failed, unchanged, skipped, deleted }
      })

    return { process }
  })

const rejectedError = (rejected: RequestBuilder.Rejected) => ({
  _tag: "RequestValidationError",
  message: `${rejected.field}: ${rejected.message}`,
  fieldViolations: [{ field: rejected.field, message: rejected.message }]
})

/** The batch processor service. */
export class BatchProcessor extends Context.Service<BatchProcessor, Effect.Success<ReturnType<typeof make>>>()(
  "@warden/daemon/BatchProcessor"
) {
  /** The processor on the state store and the API clients in context. */
  static readonly layer = (options: ProcessorOptions) => Layer.effect(BatchProcessor, make(options))
}
