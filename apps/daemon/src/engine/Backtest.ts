/**
 * Policy backtest: replays stored verdicts through a set of rules (no API call, no action) and says,
 * per rule, what it matched, the actions it would take, and how that differs from what was actually
 * decided: items newly acted on, no longer acted on, or acted on differently, with a few sample
 * references each. Items are compared by the set of action kinds (`hide`, `delete`...): a reordering
 * or a change of parameters is not a change of action.
 */
import { Effect } from "effect"
import * as VerdictHistory from "../state/VerdictHistory.ts"
import type { Replayable } from "../state/VerdictHistory.ts"
import * as RuleMatch from "../domain/Rule.ts"
import type { Rule } from "../domain/Rule.ts"
import type { Verdict } from "../domain/Verdict.ts"

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
  readonly newlyActed: Change
  readonly noLongerActed: Change
  readonly changedAction: Change
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

/** Replays `items` through `rules`; `samples` caps the references listed per change (default 5). */
export const run = (options: {
  readonly source: string
  readonly since: number
  readonly rules: ReadonlyArray<Rule>
  readonly items: ReadonlyArray<Replayable>
  readonly withoutVerdict?: number | undefined
  readonly samples?: number | undefined
}): Report => {
  const cap = options.samples ?? 5
  type Mutable = {
    matched: number
    actions: Record<string, number>
    newlyActed: { count: number; samples: Array<Sample> }
    noLongerActed: { count: number; samples: Array<Sample> }
    changedAction: { count: number; samples: Array<Sample> }
  }
  const empty = (): Mutable => ({
    matched: 0,
    actions: {},
    newlyActed: { count: 0, samples: [] },
    noLongerActed: { count: 0, samples: [] },
    changedAction: { count: 0, samples: [] }
  })
  const rows = new Map<string, Mutable>([...options.rules.map((r) => [r.name, empty()] as const), [NO_RULE, empty()]])
  let unchanged = 0
  for (const item of options.items) {
    const rule = RuleMatch.firstMatch(options.rules, verdictOf(item.verdict))
    const row = rows.get(rule?.name ?? NO_RULE)!
    row.matched += 1
    const after = kinds(rule?.actions ?? [])
    for (const kind of after) row.actions[kind] = (row.actions[kind] ?? 0) + 1
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
    if (change === undefined) {
      unchanged += 1
      continue
    }
    change.count += 1
    if (change.samples.length < cap) change.samples.push(sample)
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
      unchanged
    }
  }
}

const list = (values: ReadonlyArray<string>) => (values.length === 0 ? "none" : values.join("+"))

/** The report as the CLI prints it: one row per rule, then the samples of each change. */
export const formatTable = (report: Report): string => {
  const header = ["RULE", "MATCHED", "WOULD DO", "NEWLY ACTED", "NO LONGER ACTED", "CHANGED ACTION"]
  const body = report.rules.map((r) => [
    r.rule,
    String(r.matched),
    Object.entries(r.actions)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "-",
    String(r.newlyActed.count),
    String(r.noLongerActed.count),
    String(r.changedAction.count)
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((c, i) => (i === 0 || i === 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd()
  const out = [
    `source ${report.source}: ${report.replayed} verdict${report.replayed === 1 ? "" : "s"} since ${report.since} replayed` +
      (report.withoutVerdict > 0 ? ` (${report.withoutVerdict} without a verdict skipped)` : ""),
    line(header),
    ...body.map(line),
    `totals: ${report.totals.newlyActed} newly acted, ${report.totals.noLongerActed} no longer acted, ${report.totals.changedAction} changed action, ${report.totals.unchanged} unchanged`
  ]
  for (const r of report.rules) {
    for (const [what, change] of [
      ["newly acted", r.newlyActed],
      ["no longer acted", r.noLongerActed],
      ["changed action", r.changedAction]
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
}) {
  const { replayable, withoutVerdict } = yield* VerdictHistory.window(options.source, options.since)
  return run({ ...options, items: replayable, withoutVerdict })
})
