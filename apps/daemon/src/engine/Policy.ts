/**
 * A source's rules: an ordered list of conditions over the verdict, each with platform actions and
 * optionally the sinks that receive its matches. The first rule that matches decides; a verdict no rule
 * matches goes to every sink and triggers nothing.
 */
import { SEVERITIES, severityRank } from "@warden/core"
import type { Rule, RuleWhen } from "../config/WardenConfig.ts"
import type { Verdict } from "./Verdict.ts"

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
