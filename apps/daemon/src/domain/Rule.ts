/**
 * A source's rules: an ordered list of conditions over the verdict, each with platform actions and
 * optionally the sinks that receive its matches. The first rule that matches decides; a verdict no rule
 * matches goes to every sink and triggers nothing. The config file (`sources[].rules`), `warden policy
 * test --rules` and `POST /api/policy/test` all decode rules with these schemas.
 */
import {
  ANALYSIS_TYPES,
  AnalysisType,
  DIRECTED_AT,
  DirectedAt,
  LanguageCode,
  RECOMMENDED_ACTIONS,
  RecommendedAction,
  SEVERITIES,
  Severity,
  severityRank,
  TextClassification
} from "@warden/core"
import { ConfigDuration } from "@warden/connector"
import { Duration, Schema, SchemaTransformation } from "effect"
import { withDefault } from "./internal/Schemas.ts"
import type { Verdict } from "./Verdict.ts"

/** An action in a rule: a kind (`hide`) or `{ kind, params?, reason? }`; decoded to the long form. */
export const RuleAction = Schema.Union([
  Schema.Struct({
    kind: Schema.String.check(Schema.isNonEmpty()),
    params: Schema.optionalKey(Schema.Record(Schema.String, Schema.Json)),
    reason: Schema.optionalKey(Schema.String)
  }),
  Schema.String.check(Schema.isNonEmpty()).pipe(
    Schema.decodeTo(
      Schema.Struct({ kind: Schema.String }),
      SchemaTransformation.transform({ decode: (kind: string) => ({ kind }), encode: ({ kind }) => kind })
    )
  )
])
/** A rule action, decoded. */
export interface RuleAction {
  readonly kind: string
  readonly params?: { readonly [x: string]: Schema.Json }
  readonly reason?: string
}

/**
 * The conditions of a rule on the verdict alone: every given condition must hold (an empty one
 * matches everything). Also what a strike policy's `authors.strikes.verdicts[].when` is written in.
 */
export const VerdictWhen = Schema.Struct({
  type: Schema.optionalKey(Schema.Array(AnalysisType)),
  recommendedAction: Schema.optionalKey(Schema.Array(RecommendedAction)),
  severityAtLeast: Schema.optionalKey(Severity),
  classifications: Schema.optionalKey(
    Schema.Struct({
      anyOf: Schema.optionalKey(Schema.Array(TextClassification)),
      allOf: Schema.optionalKey(Schema.Array(TextClassification))
    })
  ),
  directedAt: Schema.optionalKey(Schema.Array(DirectedAt)),
  language: Schema.optionalKey(Schema.Array(LanguageCode))
}).annotate({
  description: `Known types: ${ANALYSIS_TYPES.join(", ")}; actions: ${RECOMMENDED_ACTIONS.join(", ")}; severities: ${SEVERITIES.join(", ")}; directedAt: ${DIRECTED_AT.join(", ")}`
})
/** @see {@link VerdictWhen} */
export type VerdictWhen = typeof VerdictWhen.Type

/**
 * Conditions on the item's author (`when.author`), beside the verdict's: `strikesAtLeast` (the
 * author's decayed strike score, this item's own strike included when it counts) and/or `within` +
 * `count` (at least `count` items of the author, this one included, recorded within `within`, of
 * `type` / `severityAtLeast` when given, across every source of the same platform). An item without an
 * author identifier never matches an author condition.
 */
export const AuthorWhen = Schema.Struct({
  strikesAtLeast: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThan(0))),
  within: Schema.optionalKey(ConfigDuration.atLeast("1 second")),
  count: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 }))),
  type: Schema.optionalKey(Schema.Array(AnalysisType)),
  severityAtLeast: Schema.optionalKey(Severity)
})
  .check(
    Schema.makeFilter(
      (a) =>
        (a.within === undefined) === (a.count === undefined) || {
          path: [a.within === undefined ? "within" : "count"],
          issue: "within and count go together (at least count items within that time)"
        }
    ),
    Schema.makeFilter(
      (a) =>
        a.strikesAtLeast !== undefined ||
        a.within !== undefined ||
        "give strikesAtLeast, or within and count (type and severityAtLeast narrow what is counted)"
    ),
    Schema.makeFilter(
      (a) =>
        a.within !== undefined ||
        (a.type === undefined && a.severityAtLeast === undefined) || {
          path: [a.type !== undefined ? "type" : "severityAtLeast"],
          issue: "narrows what within/count counts: give within and count too"
        }
    )
  )
  .annotate({
    description:
      "Conditions on the author: strikesAtLeast (decayed strike score), or within + count (items of the author within that time, optionally of type/severityAtLeast)"
  })
/** @see {@link AuthorWhen} */
export type AuthorWhen = typeof AuthorWhen.Type

/** The conditions of a rule: the verdict's, and optionally the author's (`author`); all given must hold. */
export const RuleWhen = Schema.Struct({ ...VerdictWhen.fields, author: Schema.optionalKey(AuthorWhen) }).annotate({
  description: `Known types: ${ANALYSIS_TYPES.join(", ")}; actions: ${RECOMMENDED_ACTIONS.join(", ")}; severities: ${SEVERITIES.join(", ")}; directedAt: ${DIRECTED_AT.join(", ")}; author: strikesAtLeast, within + count`
})
/** @see {@link RuleWhen} */
export type RuleWhen = typeof RuleWhen.Type

/** A policy rule of a source (issue 7): rules are ordered, the first match wins. */
export const Rule = Schema.Struct({
  name: Schema.String.check(
    Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/u, { message: "must be letters, digits, '-', '_' or '.'" })
  ),
  when: RuleWhen.pipe(withDefault({})),
  actions: Schema.Array(RuleAction).pipe(withDefault([])),
  sinks: Schema.optionalKey(Schema.Array(Schema.String)),
  /**
   * Sends a match to Warden's review queue (every source, read-only ones included); where the
   * connector declares `holdForReview` and the rule's actions do not already hold, the item is also
   * held on the platform.
   */
  review: Schema.optionalKey(Schema.Boolean)
})
/** @see {@link Rule} */
export type Rule = Omit<typeof Rule.Type, "actions"> & { readonly actions: ReadonlyArray<RuleAction> }

/**
 * What the author conditions read of an item's author, as of the record transaction (the author's
 * stored history plus the items of the same batch before this one): built by the engine, read here.
 */
export interface AuthorContext {
  /** The author key (`<platform>:<identifier>`). */
  readonly key: string
  /** The author's decayed strike score now, this item's strike included when it counts. */
  readonly strikes: () => number
  /** Items of the author recorded within the last `withinMillis`, this one included, of those types/severity. */
  readonly count: (
    withinMillis: number,
    types: ReadonlyArray<string> | undefined,
    severityAtLeast: string | undefined
  ) => number
}

/** Whether a verdict's severity is at least `threshold` (an unknown threshold matches only itself). */
export const severityMeets = (severity: string | undefined, threshold: string): boolean => {
  if (severity === undefined) return false
  // A threshold the rules do not know (refused by the config check) never widens a rule: it
  // matches only that exact name, not "everything ranked above an unknown".
  if (!(SEVERITIES as ReadonlyArray<string>).includes(threshold)) return severity === threshold
  return severityRank(severity) >= severityRank(threshold)
}

/** Whether an author meets `when.author` (an item without an author never does). */
export const authorMatches = (when: AuthorWhen, author: AuthorContext | undefined): boolean => {
  if (author === undefined) return false
  if (when.strikesAtLeast !== undefined && author.strikes() < when.strikesAtLeast) return false
  if (when.within !== undefined && when.count !== undefined) {
    const n = author.count(Duration.toMillis(when.within), when.type, when.severityAtLeast)
    if (n < when.count) return false
  }
  return true
}

/** Whether a verdict (and its author) meets every condition of `when` (an empty `when` matches everything). */
export const matches = (when: RuleWhen, verdict: Verdict, author?: AuthorContext): boolean => {
  const has = (list: ReadonlyArray<string> | undefined, value: string | undefined) =>
    list === undefined || (value !== undefined && list.includes(value))
  if (!has(when.type, verdict.type)) return false
  if (!has(when.recommendedAction, verdict.recommendedAction)) return false
  if (!has(when.directedAt, verdict.directedAt)) return false
  if (
    when.language !== undefined &&
    !has(
      when.language.map((l) => l.toLowerCase()),
      verdict.language?.toLowerCase()
    )
  )
    return false
  if (when.severityAtLeast !== undefined && !severityMeets(verdict.severity, when.severityAtLeast)) return false
  const anyOf = when.classifications?.anyOf
  if (anyOf !== undefined && anyOf.length > 0 && !anyOf.some((c) => verdict.classifications.includes(c))) return false
  const allOf = when.classifications?.allOf
  if (allOf !== undefined && !allOf.every((c) => verdict.classifications.includes(c))) return false
  // Last: the verdict's conditions are cheap, the author's read the history.
  if ("author" in when && when.author !== undefined && !authorMatches(when.author, author)) return false
  return true
}

/** The first rule whose condition the verdict (and its author) meets. */
export const firstMatch = (rules: ReadonlyArray<Rule>, verdict: Verdict, author?: AuthorContext): Rule | undefined =>
  rules.find((rule) => matches(rule.when, verdict, author))

/** Whether any rule has a condition on the author (the record step then builds the author's context). */
export const usesAuthor = (rules: ReadonlyArray<Rule>): boolean => rules.some((r) => r.when.author !== undefined)

/** The longest `when.author.within` of the rules, in milliseconds (0: none counts items). */
export const longestWithin = (rules: ReadonlyArray<Rule>): number =>
  Math.max(0, ...rules.map((r) => (r.when.author?.within === undefined ? 0 : Duration.toMillis(r.when.author.within))))

/** The reason given to the platform (audit logs, mod-log posts): the rule and the verdict in short. */
export const reasonOf = (rule: string, verdict: Verdict): string =>
  `warden rule ${rule}: ${verdict.type ?? "?"} ${verdict.severity ?? "?"}${verdict.classifications.length > 0 ? ` (${verdict.classifications.join(", ")})` : ""}`
