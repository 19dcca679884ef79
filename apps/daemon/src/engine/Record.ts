/**
 * The batch's record step: a round's outcomes, with the actions and sinks the policy decides for
 * each, written in one transaction (item versions, outbox rows, actions), then counted. A version
 * lands once however often its batch is delivered; only a version recorded for the first time is
 * counted and logged.
 */
import { Effect, Metric } from "effect"
import type { Outcome } from "../domain/Outcome.ts"
import { unrecognisedError } from "../domain/Outcome.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import * as VerdictRecord from "../domain/VerdictRecord.ts"
import type { ItemStoreShape, RecordEntry } from "../state/ItemStore.ts"
import type { Work } from "./Dedupe.ts"
import * as Metrics from "./Metrics.ts"
import * as Policy from "./Policy.ts"
import type { SourceStatus } from "./SourceStatus.ts"

/** Options of the record step shared by every source. */
export interface RecordOptions {
  /** Names of every configured sink: each verdict is queued for each (or for its rule's sinks). */
  readonly sinks: ReadonlyArray<string>
  /** Whether sinks may receive the content text (`log.content: true`). */
  readonly includeContent: boolean
}

/** What the record step uses. */
export interface RecordDeps {
  readonly items: ItemStoreShape
  readonly sourceStatus: SourceStatus["Service"]
  readonly options: RecordOptions
}

/** An analysed (or failed, or unanalysed) item of a round. */
export type Done = readonly [Work, Outcome]

/** What `recordItems` stores for one outcome: the item version, its verdict record and its actions. */
export const entryOf = (
  options: RecordOptions,
  settings: SourceSettings,
  work: Work,
  outcome: Outcome
): RecordEntry => {
  const analysedAt = new Date().toISOString()
  const { event } = work
  const decision = Policy.decide(settings, outcome, options.sinks)
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
            ? unrecognisedError(outcome.shape)
            : undefined,
      segments: outcome.status === "analysed" ? outcome.segments : [],
      event: JSON.stringify(event),
      author: event.author?.identifier,
      rule: decision.rule,
      analysedAt,
      createdAt: Date.now()
    },
    sinks: decision.sinks,
    payload: JSON.stringify(payload),
    actions: decision.actions
  }
}

/** The warning (or, for an unrecognised answer, the first-of-its-kind warning) of a version recorded for the first time. */
const logged = (deps: RecordDeps, settings: SourceSettings, work: Work, outcome: Outcome): Effect.Effect<void> => {
  if (outcome.status === "failed") {
    return Effect.logWarning(`item not analysed: ${outcome.error.message}`).pipe(
      Effect.annotateLogs({ source: settings.id, reference: work.event.reference, code: outcome.error.code })
    )
  }
  if (outcome.status !== "unrecognised") return Effect.void
  // Counted every time, logged once per source, endpoint and shape of answer (not once per item).
  return Effect.gen(function* () {
    yield* Metric.update(
      Metric.withAttributes(Metrics.unrecognised, { source: settings.id, endpoint: outcome.endpoint }),
      1
    )
    const first = yield* deps.sourceStatus.answerUnrecognised(settings.id, outcome.endpoint, outcome.shape)
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

/**
 * The item and verdict counters of the versions recorded for the first time: one update per series
 * and round, not per item (an attributed update hashes its attributes each time).
 */
const counted = (settings: SourceSettings, done: ReadonlyArray<Done>, inserted: ReadonlyArray<boolean>) => {
  const items = new Map<string, number>()
  const verdicts = new Map<string, { type: string; severity: string; n: number }>()
  for (let i = 0; i < done.length; i++) {
    if (inserted[i] !== true) continue
    const outcome = done[i]![1]
    items.set(outcome.status, (items.get(outcome.status) ?? 0) + 1)
    if (outcome.status === "analysed") {
      const type = outcome.verdict.type ?? "UNKNOWN"
      const severity = outcome.verdict.severity ?? "UNKNOWN"
      const key = `${type}\u001f${severity}`
      const known = verdicts.get(key)
      if (known === undefined) verdicts.set(key, { type, severity, n: 1 })
      else known.n++
    }
  }
  return Effect.gen(function* () {
    for (const [status, n] of items)
      yield* Metric.update(Metric.withAttributes(Metrics.itemsOut, { source: settings.id, status }), n)
    for (const { type, severity, n } of verdicts.values())
      yield* Metric.update(Metric.withAttributes(Metrics.verdicts, { type, severity }), n)
  })
}

/** Records a round's outcomes in one transaction; returns each item's status. */
export const recordAll = (deps: RecordDeps, settings: SourceSettings, done: ReadonlyArray<Done>) =>
  Effect.gen(function* () {
    const inserted = yield* deps.items
      .recordItems(done.map(([work, outcome]) => entryOf(deps.options, settings, work, outcome)))
      .pipe(Effect.orDie)
    yield* counted(settings, done, inserted)
    for (let i = 0; i < done.length; i++) {
      const outcome = done[i]![1]
      if (inserted[i] === true && (outcome.status === "failed" || outcome.status === "unrecognised"))
        yield* logged(deps, settings, done[i]![0], outcome)
    }
    // The API works for this source: /readyz tells an API that fails from one bad answer.
    if (done.some(([, outcome]) => outcome.status === "analysed")) yield* deps.sourceStatus.answered(settings.id)
    return done.map(([, outcome]) => outcome.status)
  })
