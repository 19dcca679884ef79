/**
 * The batch's record step: a round's outcomes, with the actions, sinks and review the policy decides
 * for each, written in one transaction (item versions, outbox rows, actions, review rows, strikes),
 * then counted. A version lands once however often its batch is delivered; only a version recorded for
 * the first time is counted and logged.
 *
 * When a rule of the source has an author condition (`when.author`), the policy decides inside that
 * transaction, after it read the round's authors (AuthorHistory): each entry in batch order, with the
 * entries before it added, so two items of one author in one round count each other. Without one, the
 * round reads nothing of its authors.
 */
import { Clock, Effect, Metric } from "effect"
import type { Outcome } from "../domain/Outcome.ts"
import { unrecognisedError } from "../domain/Outcome.ts"
import type { AuthorContext } from "../domain/Rule.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import * as StrikePolicy from "../domain/StrikePolicy.ts"
import * as VerdictRecord from "../domain/VerdictRecord.ts"
import { keyOf } from "../state/AuthorStore.ts"
import type { ItemStoreShape, RecordEntry } from "../state/ItemStore.ts"
import { rankOf } from "../state/ReviewStore.ts"
import * as AuthorHistory from "./AuthorHistory.ts"
import type { Work } from "./Dedupe.ts"
import * as Metrics from "./Metrics.ts"
import * as Policy from "./Policy.ts"
import type { SourceStatus } from "./SourceStatus.ts"

/** Options of the record step shared by every source. */
export interface RecordOptions {
  /** Names of every configured sink: each verdict is queued for each (or for its rule's sinks). */
  readonly sinks: ReadonlyArray<string>
  /**
   * The sinks whose entry says `content: true`: their records carry the content text. The others'
   * records never do (the outbox keeps no copy of the text for them).
   */
  readonly contentSinks?: ReadonlyArray<string> | undefined
}

/** What the record step uses. */
export interface RecordDeps {
  readonly items: ItemStoreShape
  readonly sourceStatus: SourceStatus["Service"]
  readonly options: RecordOptions
}

/** An analysed (or failed, or unanalysed) item of a round. */
export type Done = readonly [Work, Outcome]

/** The author key of a work's event (`<platform>:<identifier>`), if the event names an identifier. */
export const authorKeyOf = (settings: SourceSettings, work: Work): string | undefined => {
  const identifier = work.event.author?.identifier
  return identifier === undefined || identifier === ""
    ? undefined
    : keyOf(settings.platform ?? settings.connector, identifier)
}

/**
 * What `recordItems` stores for one outcome: the item version, its verdict record, its actions, its
 * review row and its strike. `now` is the round's time (Clock); `author` the item's author as of the
 * record transaction, when a rule reads it.
 */
export const entryOf = (
  options: RecordOptions,
  settings: SourceSettings,
  work: Work,
  outcome: Outcome,
  now: number,
  author?: AuthorContext
): RecordEntry => {
  const analysedAt = new Date(now).toISOString()
  const { event } = work
  const decision = Policy.decide(settings, outcome, options.sinks, author)
  const authorKey = authorKeyOf(settings, work)
  const payload = VerdictRecord.fromOutcome({
    source: settings.id,
    reference: event.reference,
    version: work.version,
    contentType: event.content.type,
    mode: settings.mode,
    outcome,
    locator: VerdictRecord.locatorOf(event, settings.platform ?? settings.connector, authorKey),
    analysedAt,
    dryRun: settings.dryRun,
    rule: decision.rule,
    actions: decision.actions.map((a) => a.kind)
  })
  const contentSinks =
    event.content.type === "text" && options.contentSinks !== undefined && options.contentSinks.length > 0
      ? decision.sinks.filter((sink) => options.contentSinks!.includes(sink))
      : []
  const verdict = outcome.status === "analysed" ? outcome.verdict : undefined
  const weight =
    verdict === undefined || authorKey === undefined ? undefined : StrikePolicy.weightOf(settings.strikes, verdict)
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
      verdict,
      error:
        outcome.status === "failed"
          ? outcome.error
          : outcome.status === "unrecognised"
            ? unrecognisedError(outcome.shape)
            : undefined,
      segments: outcome.status === "analysed" ? outcome.segments : [],
      event: JSON.stringify(event),
      author: event.author?.identifier,
      authorKey,
      authorName: event.author?.username,
      rule: decision.rule,
      analysedAt,
      createdAt: now
    },
    sinks: decision.sinks,
    payload: JSON.stringify(payload),
    ...(contentSinks.length === 0 || event.content.type !== "text"
      ? {}
      : {
          content: {
            sinks: contentSinks,
            payload: JSON.stringify(VerdictRecord.withText(payload, event.content.text))
          }
        }),
    rule: decision.rule,
    actions: decision.actions,
    review:
      decision.review && decision.rule !== undefined
        ? {
            source: settings.id,
            reference: event.reference,
            version: work.version,
            rule: decision.rule,
            verdictType: verdict?.type,
            severityRank: rankOf(verdict?.severity),
            authorKey,
            createdAt: now
          }
        : undefined,
    strike:
      weight === undefined || authorKey === undefined
        ? undefined
        : { authorKey, source: settings.id, reference: event.reference, weight, at: now }
  }
}

/**
 * A round's entries, decided in batch order inside the record transaction when a rule reads authors
 * (each entry's item and strike added to its author before the next one is decided), else at once.
 */
const recordRound = (deps: RecordDeps, settings: SourceSettings, done: ReadonlyArray<Done>, now: number) => {
  const keys = done.map(([work]) => authorKeyOf(settings, work))
  const read = AuthorHistory.readOf(settings, [...new Set(keys.filter((k) => k !== undefined))], now)
  if (read === undefined) {
    const entries = done.map(([work, outcome]) => entryOf(deps.options, settings, work, outcome, now))
    return Effect.map(deps.items.recordItems(entries), (inserted) => ({ entries, inserted }))
  }
  const halfLife = settings.strikes?.halfLifeMillis ?? StrikePolicy.DEFAULT_HALF_LIFE_MILLIS
  return deps.items.recordDecided(read, (history) => {
    const authors = AuthorHistory.make(history, now, halfLife)
    return done.map(([work, outcome], i) => {
      const key = keys[i]
      if (key === undefined) return entryOf(deps.options, settings, work, outcome, now)
      const verdict = outcome.status === "analysed" ? outcome.verdict : undefined
      const weight = verdict === undefined ? undefined : StrikePolicy.weightOf(settings.strikes, verdict)
      // This item counts for its own conditions ("this one included"), with its strike.
      authors.add(
        key,
        {
          source: settings.id,
          reference: work.event.reference,
          version: work.version,
          createdAt: now,
          type: verdict?.type ?? null,
          severity: verdict?.severity ?? null
        },
        weight === undefined ? undefined : { weight, at: now }
      )
      return entryOf(deps.options, settings, work, outcome, now, authors.context(key))
    })
  })
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

/** `warden_rule_matches_total{source,rule}`: the versions recorded for the first time that each rule matched. */
const ruleMatches = (settings: SourceSettings, entries: ReadonlyArray<RecordEntry>, inserted: ReadonlyArray<boolean>) =>
  Effect.gen(function* () {
    const byRule = new Map<string, number>()
    entries.forEach((entry, i) => {
      const rule = entry.rule
      if (inserted[i] === true && rule !== undefined) byRule.set(rule, (byRule.get(rule) ?? 0) + 1)
    })
    for (const [rule, n] of byRule)
      yield* Metric.update(Metric.withAttributes(Metrics.ruleMatches, { source: settings.id, rule }), n)
  })

/** Records a round's outcomes in one transaction; returns each item's status. */
export const recordAll = (deps: RecordDeps, settings: SourceSettings, done: ReadonlyArray<Done>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const { entries, inserted } = yield* recordRound(deps, settings, done, now).pipe(Effect.orDie)
    yield* counted(settings, done, inserted)
    yield* ruleMatches(settings, entries, inserted)
    for (let i = 0; i < done.length; i++) {
      const outcome = done[i]![1]
      if (inserted[i] === true && (outcome.status === "failed" || outcome.status === "unrecognised"))
        yield* logged(deps, settings, done[i]![0], outcome)
    }
    // The API works for this source: /readyz tells an API that fails from one bad answer.
    if (done.some(([, outcome]) => outcome.status === "analysed")) yield* deps.sourceStatus.answered(settings.id)
    return done.map(([, outcome]) => outcome.status)
  })
