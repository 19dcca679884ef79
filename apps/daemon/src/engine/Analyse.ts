/**
 * The batch's analyse step: a round's work through the API (v1 items concurrently, or legacy
 * micro-batches), then the record step on whatever was answered.
 *
 * What was answered is recorded also when the analysis fails (the API became unavailable) or is
 * interrupted (shutdown): those answers are billed, and the batch, delivered again, must not ask for
 * them a second time (issue 19: a SIGTERM mid-round threw the round's answers away and they were
 * analysed again). Calls on the wire at the interruption are waited for (FinishOnStop).
 */
import type { AnalyzeV1 } from "@warden/v1"
import { Cause, Effect, Exit, Option } from "effect"
import type { ItemStatus } from "../domain/ItemVersion.ts"
import type { Outcome } from "../domain/Outcome.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import { StateHealth, warnUnlessOutage } from "../state/StateHealth.ts"
import { analyseV1, failedOutcome } from "./Analyzer.ts"
import type { Work } from "./Dedupe.ts"
import type { EngineError } from "./EngineError.ts"
import { finishOnStop } from "./FinishOnStop.ts"
import type { LegacyAnalyzer } from "./LegacyAnalyzer.ts"
import type { Done } from "./Record.ts"
import * as RequestBuilder from "./RequestBuilder.ts"

/** Records the outcomes in hand (the record step, bound to its source). */
export type Recorder = (done: ReadonlyArray<Done>) => Effect.Effect<Array<ItemStatus>>

/**
 * Runs `analyse`, then records what it answered in one transaction. `answered(complete)` lists the
 * outcomes in hand; `complete` says the analysis ran to its end.
 */
const thenRecord = (
  record: Recorder,
  analyse: Effect.Effect<void, EngineError>,
  answered: (complete: boolean) => ReadonlyArray<Done>
) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(
      analyse.pipe(
        Effect.onInterrupt(() =>
          record(answered(false)).pipe(
            Effect.catchCause((cause) =>
              // The state store down (its shards let go, the batch stops): its outage's line says so.
              Effect.flatMap(Effect.serviceOption(StateHealth), (health) =>
                warnUnlessOutage(Option.getOrUndefined(health), "recording a round's answers at shutdown failed", cause)
              )
            )
          )
        )
      )
    )
    const statuses = yield* record(answered(exit._tag === "Success"))
    if (exit._tag === "Failure") return yield* Effect.failCause(exit.cause)
    return statuses
  })

const rejectedError = (rejected: RequestBuilder.Rejected) => ({
  _tag: "RequestValidationError",
  message: `${rejected.field}: ${rejected.message}`,
  fieldViolations: [{ field: rejected.field, message: rejected.message }]
})

/**
 * Analyses a round's items concurrently (one failing does not stop the others), then records them.
 * The round stops as one (FinishOnStop around the whole round, not each call: a stop signal and a
 * detached fiber per call cost ~3% of the data path's allocation per item): interrupted, its calls on
 * the wire finish and are recorded, those not started yet end at once without sending (each ends
 * interrupted, which here only ends that item: `Effect.exit`).
 */
export const roundV1 = (
  v1: AnalyzeV1.AnalyzeV1["Service"],
  concurrency: number,
  settings: SourceSettings,
  work: ReadonlyArray<Work>,
  record: Recorder
) => {
  const outcomes: Array<Outcome | undefined> = new Array(work.length)
  const analyse = Effect.gen(function* () {
    const results = yield* Effect.forEach(
      work,
      (w, i): Effect.Effect<Exit.Exit<void, EngineError>> => {
        const prepared = RequestBuilder.v1Bodies(settings, w.event)
        if (prepared._tag === "Rejected") {
          outcomes[i] = failedOutcome(undefined, undefined, rejectedError(prepared))
          return Effect.succeed(Exit.void)
        }
        return analyseV1(v1, settings.id, prepared).pipe(
          Effect.tap((o) =>
            Effect.sync(() => {
              outcomes[i] = o
            })
          ),
          Effect.asVoid,
          Effect.exit
        )
      },
      { concurrency }
    )
    // A failure of the API fails the round (after the others finished); an item only interrupted
    // (stopped before it was sent) is what a stop leaves, not a failure.
    for (const result of results) {
      if (Exit.isFailure(result) && !Cause.hasInterruptsOnly(result.cause)) {
        return yield* Effect.failCause(result.cause)
      }
    }
  })
  return thenRecord(record, finishOnStop(analyse), () =>
    work.flatMap((w, i) => (outcomes[i] === undefined ? [] : [[w, outcomes[i]] as const]))
  )
}

/** Sends a round's items as legacy micro-batches, then records them. */
export const roundLegacy = (
  legacy: LegacyAnalyzer["Service"],
  settings: SourceSettings,
  work: ReadonlyArray<Work>,
  record: Recorder
) => {
  const prepared = work.map((w) => ({ work: w, messages: RequestBuilder.legacyMessages(settings, w.event) }))
  const sendable = prepared.flatMap((p) =>
    Array.isArray(p.messages) ? [{ key: p.work.event.reference, messages: p.messages }] : []
  )
  const outcomes = new Map<string, Outcome>()
  return thenRecord(
    record,
    Effect.asVoid(legacy.analyse(settings.id, settings.channelId, sendable, outcomes)),
    (complete) =>
      prepared.flatMap((p): Array<Done> => {
        if (!Array.isArray(p.messages)) {
          return [[p.work, failedOutcome(undefined, undefined, rejectedError(p.messages as RequestBuilder.Rejected))]]
        }
        const outcome = outcomes.get(p.work.event.reference)
        if (outcome !== undefined) return [[p.work, outcome]]
        // Not answered: after a complete analysis the answer lacked it; otherwise it was never sent.
        return complete
          ? [
              [
                p.work,
                failedOutcome("/api/analyze", undefined, {
                  _tag: "MissingResult",
                  message: "no result for this message"
                })
              ]
            ]
          : []
      })
  )
}
