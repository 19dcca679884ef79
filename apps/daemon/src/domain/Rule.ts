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
import { Schema, SchemaTransformation } from "effect"
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

/** The conditions of a rule: every given condition must hold (an empty `when` matches everything). */
export const RuleWhen = Schema.Struct({
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
/** @see {@link RuleWhen} */
export type RuleWhen = typeof RuleWhen.Type

/** A policy rule of a source (issue 7): rules are ordered, the first match wins. */
export const Rule = Schema.Struct({
  name: Schema.String.check(
    Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/u, { message: "must be letters, digits, '-', '_' or '.'" })
  ),
  when: RuleWhen.pipe(withDefault({})),
  actions: Schema.Array(RuleAction).pipe(withDefault([])),
  sinks: Schema.optionalKey(Schema.Array(Schema.String))
})
/** @see {@link Rule} */
export type Rule = Omit<typeof Rule.Type, "actions"> & { readonly actions: ReadonlyArray<RuleAction> }

/** Whether a verdict meets every condition of `when` (an empty `when` matches everything). */
export const matches = (when: RuleWhen, verdict: Verdict): boolean => {
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
  if (when.severityAtLeast !== undefined) {
    if (verdict.severity === undefined) return false
    // A threshold the rules do not know (refused by the config check) never widens a rule: it
    // matches only that exact name, not "everything ranked above an unknown".
    if (!(SEVERITIES as ReadonlyArray<string>).includes(when.severityAtLeast)) {
      if (verdict.severity !== when.severityAtLeast) return false
    } else if (severityRank(verdict.severity) < severityRank(when.severityAtLeast)) return false
  }
  const anyOf = when.classifications?.anyOf
  if (anyOf !== undefined && anyOf.length > 0 && !anyOf.some((c) => verdict.classifications.includes(c))) return false
  const allOf = when.classifications?.allOf
  if (allOf !== undefined && !allOf.every((c) => verdict.classifications.includes(c))) return false
  return true
}

/** The first rule whose condition the verdict meets. */
export const firstMatch = (rules: ReadonlyArray<Rule>, verdict: Verdict): Rule | undefined =>
  rules.find((rule) => matches(rule.when, verdict))

/** The reason given to the platform (audit logs, mod-log posts): the rule and the verdict in short. */
export const reasonOf = (rule: string, verdict: Verdict): string =>
  `warden rule ${rule}: ${verdict.type ?? "?"} ${verdict.severity ?? "?"}${verdict.classifications.length > 0 ? ` (${verdict.classifications.join(", ")})` : ""}`
