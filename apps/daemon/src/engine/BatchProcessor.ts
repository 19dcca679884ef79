/**
 * Processes a batch of source events: dedupe, analyse, persist, decide actions, queue for the sinks.
 * This is the work the cluster entity does for each persisted message; it is idempotent, because a
 * message may be delivered again after a crash (an unchanged redelivery costs no API call, a recorded
 * version is never recorded twice, actions are keyed by item version).
 *
 * Events of one reference are handled in order; different references concurrently (v1) or as one
 * legacy micro-batch per round. Moderator reversals and member reports turn into feedback.
 */
import { AnalyzeV1 } from "@warden/v1"
import { Context, Effect, Layer, Metric, Option } from "effect"
import { type ActionRecord, type RecordEntry, StateStore } from "../state/StateStore.ts"
import { analyseV1, failedOutcome } from "./Analyzer.ts"
import type * as BatchEvent from "./BatchEvent.ts"
import * as ContentHash from "./ContentHash.ts"
import type { EngineError } from "./EngineError.ts"
import { FeedbackService } from "./FeedbackService.ts"
import { LegacyAnalyzer } from "./LegacyAnalyzer.ts"
import * as Metrics from "./Metrics.ts"
import type { Outcome, Unanalysed } from "./Outcome.ts"
import * as Policy from "./Policy.ts"
import { SourceStatus } from "./SourceStatus.ts"
import * as RequestBuilder from "./RequestBuilder.ts"
import type { SourceSettings } from "./SourceSettings.ts"
import * as VerdictRecord from "./VerdictRecord.ts"

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
export interface ProcessorOptions {
  /** Names of every configured sink: each verdict is queued for each (or for its rule's sinks). */
  readonly sinks: ReadonlyArray<string>
  /** Whether sinks may receive the content text (`log.content: true`). */
  readonly includeContent: boolean
  /** v1 items analysed at once within a batch. */
  readonly concurrency: number
}

/** How a batch is processed: normally, or without the API (failure mode allow/reject). */
export type Degraded = "allow" | "reject" | undefined

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
  readonly event: BatchEvent.Upsert
  readonly version: number
  readonly contentHash: string
}

/** The actions and sinks a recorded outcome leads to. */
export const decide = (
  settings: SourceSettings,
  outcome: Outcome,
  allSinks: ReadonlyArray<string>
): {
  readonly rule: string | undefined
  readonly actions: Array<ActionRecord>
  readonly sinks: ReadonlyArray<string>
} => {
  const status = settings.dryRun ? "would-do" : "pending"
  if (outcome.status === "analysed") {
    const rule = Policy.firstMatch(settings.rules ?? [], outcome.verdict)
    if (rule === undefined) return { rule: undefined, actions: [], sinks: allSinks }
    const reason = Policy.reasonOf(rule.name, outcome.verdict)
    const verdict = {
      type: outcome.verdict.type ?? null,
      severity: outcome.verdict.severity ?? null,
      recommendedAction: outcome.verdict.recommendedAction ?? null,
      classifications: [...outcome.verdict.classifications]
    }
    return {
      rule: rule.name,
      actions: rule.actions.map((a, seq) => ({
        seq,
        rule: rule.name,
        kind: a.kind,
        params: { ...a.params, verdict },
        reason: a.reason ?? reason,
        status
      })),
      sinks: rule.sinks ?? allSinks
    }
  }
  // No verdict (the API unreachable past the delay, or an answer without a verdict): the failure mode decides.
  const rejected =
    (outcome.status === "unanalysed" && outcome.mode === "reject") ||
    (outcome.status === "unrecognised" && settings.failure?.mode === "reject")
  if (rejected && settings.failure?.action !== undefined) {
    return {
      rule: "failureMode",
      actions: [
        {
          seq: 0,
          rule: "failureMode",
          kind: settings.failure.action,
          params: {},
          reason:
            outcome.status === "unrecognised"
              ? "warden: the analysis API answered without a verdict (failure mode reject)"
              : "warden: the analysis API could not be reached (failure mode reject)",
          status
        }
      ],
      sinks: allSinks
    }
  }
  return { rule: undefined, actions: [], sinks: allSinks }
}

const make = (options: ProcessorOptions) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const v1 = yield* AnalyzeV1.AnalyzeV1
    const legacy = yield* LegacyAnalyzer
    const feedback = yield* FeedbackService
    const sourceStatus = yield* SourceStatus

    /**
     * Decides, for each upsert of a round (one per reference), whether it needs analysing and as which
     * version: one query for the whole round.
     */
    const planRound = (settings: SourceSettings, events: ReadonlyArray<BatchEvent.Upsert>, degraded: Degraded) =>
      Effect.map(
        store.latestVersions(
          settings.id,
          events.map((e) => e.reference)
        ),
        (latest) =>
          events.map((event) => {
            const contentHash = ContentHash.of(event.content)
            const known = latest.get(event.reference)
            if (known !== undefined && known.contentHash === contentHash) {
              // An item recorded without a verdict (API down, or an answer without one) is analysed again.
              const noVerdict =
                known.status === "unanalysed" || known.status === "unrecognised" || known.reanalyse === true
              if (!noVerdict || degraded !== undefined) return "unchanged" as const
            }
            if (!settings.analyse.has(event.content.type)) return "skipped" as const
            return { event, version: known !== undefined ? known.version + 1 : 1, contentHash } satisfies Work
          })
      )

    /** What `recordItems` stores for an analysed (or failed, or unanalysed) item version. */
    const entryOf = (settings: SourceSettings, work: Work, outcome: Outcome): RecordEntry => {
      const analysedAt = new Date().toISOString()
      const { event } = work
      const decision = decide(settings, outcome, options.sinks)
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
        dryRun: settings.dryRun,
        rule: decision.rule,
        actions: decision.actions.map((a) => a.kind)
      })
      return {
        item: {
          source: settings.id,
          reference: event.reference,
          version: work.version,
          contentHash: work.contentHash,
          contentType: event.content.type,
          status: outcome.status,
          mode: settings.mode,
          endpoint: outcome.endpoint,
          request: outcome.request,
          response: outcome.status === "analysed" || outcome.status === "unrecognised" ? outcome.response : undefined,
          verdict: outcome.status === "analysed" ? outcome.verdict : undefined,
          error:
            outcome.status === "failed"
              ? outcome.error
              : outcome.status === "unrecognised"
                ? VerdictRecord.unrecognisedError(outcome.shape)
                : undefined,
          segments: outcome.status === "analysed" ? outcome.segments : [],
          event: JSON.stringify(event),
          author: event.author?.identifier,
          analysedAt,
          createdAt: Date.now()
        },
        sinks: decision.sinks,
        payload: JSON.stringify(payload),
        actions: decision.actions
      }
    }

    /** Metrics (and a warning for a failure) of a version recorded for the first time. */
    const counted = (settings: SourceSettings, work: Work, outcome: Outcome): Effect.Effect<void> => {
      const items = Metric.update(
        Metric.withAttributes(Metrics.itemsOut, { source: settings.id, status: outcome.status }),
        1
      )
      if (outcome.status === "failed") {
        return Effect.andThen(
          items,
          Effect.logWarning(`item not analysed: ${outcome.error.message}`).pipe(
            Effect.annotateLogs({ source: settings.id, reference: work.event.reference, code: outcome.error.code })
          )
        )
      }
      if (outcome.status === "unrecognised") {
        // Counted every time, logged once per source, endpoint and shape of answer (not once per item).
        return Effect.gen(function* () {
          yield* items
          yield* Metric.update(
            Metric.withAttributes(Metrics.unrecognised, { source: settings.id, endpoint: outcome.endpoint }),
            1
          )
          const first = yield* sourceStatus.answerUnrecognised(settings.id, outcome.endpoint, outcome.shape)
          if (first)
            yield* Effect.logWarning(
              `the API answered ${outcome.shape} without a verdict: items recorded unrecognised, not moderated (logged once per kind of answer; see /readyz, warden_unrecognised_answers_total)`
            ).pipe(
              Effect.annotateLogs({
                source: settings.id,
                endpoint: outcome.endpoint,
                reference: work.event.reference,
                failureMode: settings.failure?.mode ?? "hold"
              })
            )
        })
      }
      if (outcome.status !== "analysed") return items
      return Effect.andThen(
        items,
        Metric.update(
          Metric.withAttributes(Metrics.verdicts, {
            type: outcome.verdict.type ?? "UNKNOWN",
            severity: outcome.verdict.severity ?? "UNKNOWN"
          }),
          1
        )
      )
    }

    /** Records a round's outcomes in one transaction; each version lands once, however often delivered. */
    const recordAll = (settings: SourceSettings, done: ReadonlyArray<readonly [Work, Outcome]>) =>
      Effect.gen(function* () {
        const inserted = yield* store
          .recordItems(done.map(([work, outcome]) => entryOf(settings, work, outcome)))
          .pipe(Effect.orDie)
        for (let i = 0; i < done.length; i++) {
          if (inserted[i] === true) yield* counted(settings, done[i]![0], done[i]![1])
        }
        // The API works for this source: /readyz tells an API that fails from one bad answer.
        if (done.some(([, outcome]) => outcome.status === "analysed")) yield* sourceStatus.answered(settings.id)
        return done.map(([, outcome]) => outcome.status)
      })

    const unanalysed = (mode: "allow" | "reject"): Unanalysed => ({
      status: "unanalysed",
      endpoint: undefined,
      request: undefined,
      mode
    })

    /**
     * Runs a round's analysis, then records what it answered in one transaction. What was answered is
     * recorded also when the analysis fails (the API became unavailable) or is interrupted (shutdown):
     * those answers are billed, and the batch, delivered again, must not ask for them a second time
     * (issue 19: a SIGTERM mid-round threw the round's answers away and they were analysed again).
     * `answered(complete)` lists the outcomes in hand; `complete` says the analysis ran to its end.
     */
    const analyseThenRecord = (
      settings: SourceSettings,
      analyse: Effect.Effect<void, EngineError>,
      answered: (complete: boolean) => ReadonlyArray<readonly [Work, Outcome]>
    ) =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(
          analyse.pipe(
            Effect.onInterrupt(() =>
              recordAll(settings, answered(false)).pipe(
                Effect.catchCause((cause) => Effect.logWarning("recording a round's answers at shutdown failed", cause))
              )
            )
          )
        )
        const statuses = yield* recordAll(settings, answered(exit._tag === "Success"))
        if (exit._tag === "Failure") return yield* Effect.failCause(exit.cause)
        return statuses
      })

    /** Analyses a round's items concurrently (one failing does not stop the others), then records them. */
    const analyseRoundV1 = (settings: SourceSettings, work: ReadonlyArray<Work>) => {
      const outcomes: Array<Outcome | undefined> = new Array(work.length)
      const analyse = Effect.gen(function* () {
        const results = yield* Effect.forEach(
          work,
          (w, i) => {
            const prepared = RequestBuilder.v1Bodies(settings, w.event)
            const outcome: Effect.Effect<Outcome, EngineError> =
              prepared._tag === "Rejected"
                ? Effect.succeed(failedOutcome(undefined, undefined, rejectedError(prepared)))
                : analyseV1(v1, settings.id, prepared)
            return outcome.pipe(
              Effect.tap((o) =>
                Effect.sync(() => {
                  outcomes[i] = o
                })
              ),
              Effect.result
            )
          },
          { concurrency: options.concurrency }
        )
        const failed = results.find((r) => r._tag === "Failure")
        if (failed !== undefined) return yield* Effect.fail(failed.failure)
      })
      return analyseThenRecord(settings, analyse, () =>
        work.flatMap((w, i) => (outcomes[i] === undefined ? [] : [[w, outcomes[i]] as const]))
      )
    }

    const analyseRoundLegacy = (settings: SourceSettings, work: ReadonlyArray<Work>) => {
      const prepared = work.map((w) => ({ work: w, messages: RequestBuilder.legacyMessages(settings, w.event) }))
      const sendable = prepared.flatMap((p) =>
        Array.isArray(p.messages) ? [{ key: p.work.event.reference, messages: p.messages }] : []
      )
      const outcomes = new Map<string, Outcome>()
      return analyseThenRecord(
        settings,
        Effect.asVoid(legacy.analyse(settings.id, settings.channelId, sendable, outcomes)),
        (complete) =>
          prepared.flatMap((p) => {
            if (!Array.isArray(p.messages)) {
              return [
                [
                  p.work,
                  failedOutcome(undefined, undefined, rejectedError(p.messages as RequestBuilder.Rejected))
                ] as const
              ]
            }
            const outcome = outcomes.get(p.work.event.reference)
            if (outcome !== undefined) return [[p.work, outcome] as const]
            // Not answered: after a complete analysis the answer lacked it; otherwise it was never sent.
            return complete
              ? [
                  [
                    p.work,
                    failedOutcome("/api/analyze", undefined, {
                      _tag: "MissingResult",
                      message: "no result for this message"
                    })
                  ] as const
                ]
              : []
          })
      )
    }

    /** A moderator undid an action on the platform, or a member reported a miss: tell the API. */
    const signal = (settings: SourceSettings, event: BatchEvent.Reversal | BatchEvent.Report) =>
      Effect.gen(function* () {
        const latest = yield* store.latestVersion(settings.id, event.reference).pipe(Effect.orDie)
        if (Option.isNone(latest) || latest.value.status !== "analysed") return
        const origin = event.kind === "reversal" ? "reversal" : "report"
        if (event.kind === "reversal" && settings.autoFeedback !== true) {
          return yield* Effect.logInfo("reversal reported; autoFeedback is off, no feedback sent").pipe(
            Effect.annotateLogs({ source: settings.id, reference: event.reference })
          )
        }
        // Automatic feedback goes once per item version, however often the platform repeats the signal.
        if (yield* store.hasFeedback(settings.id, event.reference, latest.value.version, origin).pipe(Effect.orDie))
          return
        const row = yield* store.item(settings.id, event.reference, latest.value.version).pipe(Effect.orDie)
        const verdict = Option.isSome(row)
          ? (JSON.parse(row.value.verdict ?? "{}") as { classifications?: Array<string> })
          : {}
        const by = event.by?.username ?? event.by?.identifier
        const input =
          event.kind === "reversal"
            ? {
                classificationsToRemove: verdict.classifications ?? [],
                notes: `A moderator${by === undefined ? "" : ` (${by})`} reversed Warden's ${event.action ?? "action"} on the platform.`,
                confidence: "HIGH" as const
              }
            : {
                notes: event.note ?? `Reported as harmful by a member${by === undefined ? "" : ` (${by})`}.`,
                confidence: "LOW" as const
              }
        yield* feedback
          .send({ source: settings.id, reference: event.reference, version: latest.value.version, origin, input })
          .pipe(
            Effect.tap((sent) =>
              Effect.logInfo(`${origin} feedback sent: ${sent.id}`).pipe(
                Effect.annotateLogs({ source: settings.id, reference: event.reference })
              )
            ),
            Effect.catch((refused) =>
              Effect.logWarning(`${origin} feedback not sent: ${refused.message}`).pipe(
                Effect.annotateLogs({ source: settings.id, reference: event.reference })
              )
            )
          )
      })

    const process = (
      settings: SourceSettings,
      events: ReadonlyArray<BatchEvent.BatchEvent>,
      degraded: Degraded = undefined
    ): Effect.Effect<Summary, EngineError> =>
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
        for (const round of rounds(events)) {
          const upserts: Array<BatchEvent.Upsert> = []
          for (const event of round) {
            if (event.kind === "delete") {
              yield* store.markDeleted(settings.id, event.reference).pipe(Effect.orDie)
              counts.deleted++
              continue
            }
            if (event.kind === "reversal" || event.kind === "report") {
              counts.signals++
              yield* signal(settings, event)
              continue
            }
            upserts.push(event)
          }
          if (upserts.length === 0) continue
          const work: Array<Work> = []
          for (const planned of yield* planRound(settings, upserts, degraded).pipe(Effect.orDie)) {
            if (planned === "unchanged") counts.unchanged++
            else if (planned === "skipped") counts.skipped++
            else work.push(planned)
          }
          if (work.length === 0) continue
          const statuses =
            degraded !== undefined
              ? yield* recordAll(
                  settings,
                  work.map((w) => [w, unanalysed(degraded)] as const)
                )
              : settings.mode === "legacy"
                ? yield* analyseRoundLegacy(settings, work)
                : yield* analyseRoundV1(settings, work)
          for (const status of statuses) counts[status]++
        }
        return counts
      }).pipe(
        // One span per batch (OTLP when configured): ids and counts only, never content.
        Effect.withSpan("BatchProcessor.process", {
          attributes: { "warden.source": settings.id, "warden.mode": settings.mode, "warden.batch.size": events.length }
        })
      )

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
