/**
 * Policy backtest: replays stored verdicts through a set of rules (no API call, no action) and says,
 * per rule, what it matched and where it routes them (the review queue, the sinks, the platform
 * actions), and how that differs from what was actually decided: items newly acted on, no longer
 * acted on, or acted on differently, and items newly sent to review or no longer, with a few sample
 * references each. Items are compared by the set of action kinds (`hide`, `delete`...): a reordering
 * or a change of parameters is not a change of action. The rules decide as the engine does
 * (Policy.decide): a `review: true` rule on a connector that can hold also holds.
 *
 * Author conditions (`when.author`) are evaluated over the stored history as of each item's time: the
 * author's items recorded within the condition's `within` up to it (across the platform's sources,
 * this one included), and the strikes stored, as they stood then (a strike removed since counts
 * before its removal), decayed to that time. Strikes are not recomputed under the tested rules.
 */
import { Effect } from "effect"
import * as VerdictHistory from "../state/VerdictHistory.ts"
import type { Replayable } from "../state/VerdictHistory.ts"
import type { Rule } from "../domain/Rule.ts"
import * as RuleMatch from "../domain/Rule.ts"
import type { Outcome } from "../domain/Outcome.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import * as StrikePolicy from "../domain/StrikePolicy.ts"
import type { Verdict } from "../domain/Verdict.ts"
import { AuthorStore, type RecentItem } from "../state/AuthorStore.ts"
import { type Strike, StrikeStore } from "../state/StrikeStore.ts"
import * as Policy from "./Policy.ts"

/** One sample of a change: the item and the action kinds before and after. */
export interface Sample {
  readonly reference: string
  readonly version: number
  readonly before: ReadonlyArray<string>
  readonly after: ReadonlyArray<string>
  /** The rule that decided before (`null`: no action was taken). */
  readonly beforeRule: string | null
}

/** How many items changed one way, with the first few. */
export interface Change {
  readonly count: number
  readonly samples: ReadonlyArray<Sample>
}

/** What one rule of the tested set did over the window. */
export interface RuleReport {
  /** The rule's name; `(no rule)` for the items no rule matches. */
  readonly rule: string
  readonly matched: number
  /** The actions it would take, by kind: how many items each. */
  readonly actions: Readonly<Record<string, number>>
  /** How many items it would send to the review queue. */
  readonly review: number
  /** The sinks its matches would go to, by name: how many items each. */
  readonly sinks: Readonly<Record<string, number>>
  readonly newlyActed: Change
  readonly noLongerActed: Change
  readonly changedAction: Change
  /** Items it would send to review that were not. */
  readonly newlyReviewed: Change
  /** Items that went to review and it would not send there. */
  readonly noLongerReviewed: Change
}

/** A backtest of one source. */
export interface Report {
  readonly source: string
  readonly since: string
  /** Verdicts replayed. */
  readonly replayed: number
  /** Item versions of the window without a verdict (API unreachable, unrecognised, refused): not replayed. */
  readonly withoutVerdict: number
  readonly rules: ReadonlyArray<RuleReport>
  readonly totals: {
    readonly newlyActed: number
    readonly noLongerActed: number
    readonly changedAction: number
    readonly newlyReviewed: number
    readonly noLongerReviewed: number
    readonly unchanged: number
  }
}

/** The name of the report row of items no rule matches. */
export const NO_RULE = "(no rule)"

const str = (v: unknown) => (typeof v === "string" ? v : undefined)

/** A stored verdict as the rules read it (lenient: a field of the wrong type is absent). */
export const verdictOf = (stored: unknown): Verdict => {
  const v = (typeof stored === "object" && stored !== null ? stored : {}) as Record<string, unknown>
  const out: { -readonly [K in keyof Verdict]: Verdict[K] } = {
    classifications: Array.isArray(v.classifications)
      ? v.classifications.filter((c): c is string => typeof c === "string")
      : []
  }
  for (const key of ["type", "severity", "recommendedAction", "directedAt", "language"] as const) {
    const value = str(v[key])
    if (value !== undefined) out[key] = value
  }
  return out
}

const kinds = (list: ReadonlyArray<{ readonly kind: string }>) => [...new Set(list.map((a) => a.kind))].sort()

/** What a backtest knows of the source besides its rules. */
export interface SourceShape {
  /** Every configured sink (a rule without `sinks` routes to all). */
  readonly sinks?: ReadonlyArray<string> | undefined
  /** The action kinds the connector declares (a `review: true` rule holds where `holdForReview` is one). */
  readonly connectorActions?: ReadonlyArray<string> | undefined
}

/** The author of a replayed item as of its time, for the author conditions (undefined: none). */
export type AuthorAt = (item: Replayable) => RuleMatch.AuthorContext | undefined

/** Replays `items` through `rules`; `samples` caps the references listed per change (default 5). */
export const run = (options: {
  readonly source: string
  readonly since: number
  readonly rules: ReadonlyArray<Rule>
  readonly items: ReadonlyArray<Replayable>
  readonly withoutVerdict?: number | undefined
  readonly samples?: number | undefined
  readonly shape?: SourceShape | undefined
  readonly authorAt?: AuthorAt | undefined
}): Report => {
  const cap = options.samples ?? 5
  const allSinks = options.shape?.sinks ?? []
  const settings: SourceSettings = {
    id: options.source,
    connector: options.source,
    channelId: "",
    mode: "v1",
    analyse: new Set(["text"]),
    oversize: "split",
    dryRun: false,
    rules: options.rules,
    connectorActions: options.shape?.connectorActions
  }
  type Mutable = {
    matched: number
    actions: Record<string, number>
    review: number
    sinks: Record<string, number>
    newlyActed: { count: number; samples: Array<Sample> }
    noLongerActed: { count: number; samples: Array<Sample> }
    changedAction: { count: number; samples: Array<Sample> }
    newlyReviewed: { count: number; samples: Array<Sample> }
    noLongerReviewed: { count: number; samples: Array<Sample> }
  }
  const empty = (): Mutable => ({
    matched: 0,
    actions: {},
    review: 0,
    sinks: {},
    newlyActed: { count: 0, samples: [] },
    noLongerActed: { count: 0, samples: [] },
    changedAction: { count: 0, samples: [] },
    newlyReviewed: { count: 0, samples: [] },
    noLongerReviewed: { count: 0, samples: [] }
  })
  const rows = new Map<string, Mutable>([...options.rules.map((r) => [r.name, empty()] as const), [NO_RULE, empty()]])
  const note = (change: { count: number; samples: Array<Sample> }, sample: Sample) => {
    change.count += 1
    if (change.samples.length < cap) change.samples.push(sample)
  }
  let unchanged = 0
  for (const item of options.items) {
    const outcome: Outcome = {
      status: "analysed",
      endpoint: "",
      request: "",
      response: "",
      verdict: verdictOf(item.verdict),
      segments: []
    }
    const decision = Policy.decide(settings, outcome, allSinks, options.authorAt?.(item))
    const row = rows.get(decision.rule ?? NO_RULE)!
    row.matched += 1
    const after = kinds(decision.actions)
    for (const kind of after) row.actions[kind] = (row.actions[kind] ?? 0) + 1
    if (decision.rule !== undefined) for (const sink of decision.sinks) row.sinks[sink] = (row.sinks[sink] ?? 0) + 1
    if (decision.review) row.review += 1
    const before = kinds(item.actions)
    const sample: Sample = {
      reference: item.reference,
      version: item.version,
      before,
      after,
      beforeRule: item.actions[0]?.rule ?? null
    }
    const change =
      before.length === 0 && after.length > 0
        ? row.newlyActed
        : before.length > 0 && after.length === 0
          ? row.noLongerActed
          : before.join(",") !== after.join(",")
            ? row.changedAction
            : undefined
    const reviewChange =
      decision.review && !item.reviewed
        ? row.newlyReviewed
        : !decision.review && item.reviewed
          ? row.noLongerReviewed
          : undefined
    if (change === undefined && reviewChange === undefined) {
      unchanged += 1
      continue
    }
    if (change !== undefined) note(change, sample)
    if (reviewChange !== undefined) note(reviewChange, sample)
  }
  const reports = [...rows.entries()].map(([rule, r]): RuleReport => ({ rule, ...r }))
  const total = (pick: (r: RuleReport) => Change) => reports.reduce((n, r) => n + pick(r).count, 0)
  return {
    source: options.source,
    since: new Date(options.since).toISOString(),
    replayed: options.items.length,
    withoutVerdict: options.withoutVerdict ?? 0,
    rules: reports,
    totals: {
      newlyActed: total((r) => r.newlyActed),
      noLongerActed: total((r) => r.noLongerActed),
      changedAction: total((r) => r.changedAction),
      newlyReviewed: total((r) => r.newlyReviewed),
      noLongerReviewed: total((r) => r.noLongerReviewed),
      unchanged
    }
  }
}

/**
 * The authors of replayed items as of each item's time, from what the state holds of them: their items
 * (`history`) and strikes (`strikes`, removed ones included).
 */
export const authorsAt = (
  history: ReadonlyArray<RecentItem>,
  strikes: ReadonlyArray<Strike>,
  halfLifeMillis: number
): AuthorAt => {
  const items = new Map<string, Array<RecentItem>>()
  for (const i of history) items.set(i.authorKey, [...(items.get(i.authorKey) ?? []), i])
  const byAuthor = new Map<string, Array<Strike>>()
  for (const s of strikes) byAuthor.set(s.authorKey, [...(byAuthor.get(s.authorKey) ?? []), s])
  return (item) => {
    const key = item.authorKey
    if (key === null) return undefined
    const at = item.createdAt
    return {
      key,
      strikes: () =>
        StrikePolicy.score(
          (byAuthor.get(key) ?? []).filter((s) => s.at <= at && (s.removedAt === null || s.removedAt > at)),
          at,
          halfLifeMillis
        ),
      count: (withinMillis, types, severityAtLeast) => {
        const counted = new Set<string>()
        for (const i of items.get(key) ?? []) {
          if (i.createdAt > at || i.createdAt < at - withinMillis) continue
          if (types !== undefined && (i.type === null || !types.includes(i.type))) continue
          if (severityAtLeast !== undefined && !RuleMatch.severityMeets(i.severity ?? undefined, severityAtLeast))
            continue
          counted.add(`${i.source}\u001f${i.reference}`)
        }
        return counted.size
      }
    }
  }
}

const list = (values: ReadonlyArray<string>) => (values.length === 0 ? "none" : values.join("+"))

/** The report as the CLI prints it: one row per rule, then the samples of each change. */
export const formatTable = (report: Report): string => {
  const header = [
    "RULE",
    "MATCHED",
    "REVIEW",
    "WOULD DO",
    "NEWLY ACTED",
    "NO LONGER ACTED",
    "CHANGED ACTION",
    "NEWLY REVIEWED",
    "NO LONGER REVIEWED"
  ]
  const body = report.rules.map((r) => [
    r.rule,
    String(r.matched),
    String(r.review),
    Object.entries(r.actions)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "-",
    String(r.newlyActed.count),
    String(r.noLongerActed.count),
    String(r.changedAction.count),
    String(r.newlyReviewed.count),
    String(r.noLongerReviewed.count)
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((c, i) => (i === 0 || i === 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd()
  const out = [
    `source ${report.source}: ${report.replayed} verdict${report.replayed === 1 ? "" : "s"} since ${report.since} replayed` +
      (report.withoutVerdict > 0 ? ` (${report.withoutVerdict} without a verdict skipped)` : ""),
    line(header),
    ...body.map(line),
    `totals: ${report.totals.newlyActed} newly acted, ${report.totals.noLongerActed} no longer acted, ${report.totals.changedAction} changed action, ${report.totals.newlyReviewed} newly sent to review, ${report.totals.noLongerReviewed} no longer sent to review, ${report.totals.unchanged} unchanged`
  ]
  for (const r of report.rules) {
    for (const [what, change] of [
      ["newly acted", r.newlyActed],
      ["no longer acted", r.noLongerActed],
      ["changed action", r.changedAction],
      ["newly sent to review", r.newlyReviewed],
      ["no longer sent to review", r.noLongerReviewed]
    ] as const) {
      if (change.count === 0) continue
      const shown = change.samples.map((s) => `${s.reference} v${s.version} (${list(s.before)} -> ${list(s.after)})`)
      out.push(
        `  ${r.rule} ${what}: ${shown.join(", ")}${change.count > shown.length ? `, ... ${change.count - shown.length} more` : ""}`
      )
    }
  }
  return out.join("\n")
}

/** Replays a source's stored verdicts since `since` (epoch millis) through `rules`. */
export const fromStore = Effect.fn("Backtest.fromStore")(function* (options: {
  readonly source: string
  readonly since: number
  readonly rules: ReadonlyArray<Rule>
  readonly samples?: number | undefined
  readonly shape?: SourceShape | undefined
  /** The strikes' half-life (`authors.strikes.halfLife`; default 7 days). */
  readonly halfLifeMillis?: number | undefined
}) {
  const { replayable, withoutVerdict } = yield* VerdictHistory.window(options.source, options.since)
  const conditions = options.rules.flatMap((r) => (r.when.author === undefined ? [] : [r.when.author]))
  if (conditions.length === 0) return run({ ...options, items: replayable, withoutVerdict })
  // The authors' history: their items back to the longest `within` before the window, their strikes.
  const keys = [...new Set(replayable.flatMap((i) => (i.authorKey === null ? [] : [i.authorKey])))]
  const within = RuleMatch.longestWithin(options.rules)
  const history = yield* AuthorStore.use((a) => a.recent(keys, options.since - within))
  const strikes = yield* StrikeStore.use((s) => s.ofAuthors(keys))
  return run({
    ...options,
    items: replayable,
    withoutVerdict,
    authorAt: authorsAt(history, strikes, options.halfLifeMillis ?? StrikePolicy.DEFAULT_HALF_LIFE_MILLIS)
  })
})
