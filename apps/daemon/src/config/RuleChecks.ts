/**
 * The checks a source's rules get beyond their schema, shared by `warden config check` (LoadConfig),
 * `warden policy test --rules` and `POST /api/policy/test` (RuleSet), so that the three refuse the
 * same rules: unique names, values in `when` the rules know (the verdict's and the author's), sinks
 * that exist, and platform actions the source's connector declares. `review: true` is never refused:
 * the review queue is Warden's own, on every source.
 */
import {
  ANALYSIS_TYPES,
  DIRECTED_AT,
  IMAGE_CLASSIFICATIONS,
  RECOMMENDED_ACTIONS,
  SEVERITIES,
  TEXT_CLASSIFICATIONS
} from "@warden/core"
import type { RuleAction, RuleWhen, VerdictWhen } from "../domain/Rule.ts"
import type { ConfigProblem } from "./ConfigError.ts"
import { suggest } from "./internal/Problems.ts"

/** A rule as far as it decoded (the config check decodes key by key: a broken name leaves the rest checked). */
export interface CheckedRule {
  readonly name: string | undefined
  readonly when: RuleWhen
  readonly actions: ReadonlyArray<RuleAction>
  readonly sinks?: ReadonlyArray<string> | undefined
}

/** What the checks compare the rules with; a part left out is not checked. */
export interface Context {
  /** The configured sinks' names (`undefined` entries: sinks that did not decode). */
  readonly sinkNames?: ReadonlyArray<string | undefined> | undefined
  /** The source's connector: its `type` and the action kinds it declares. */
  readonly connector?: { readonly type: string; readonly actions: ReadonlyArray<string> } | undefined
}

const article = (what: string) => (/^[aeiou]/u.test(what) ? "an" : "a")

/**
 * Problems for `when` values outside the known lists. API *answers* stay open (an unknown name
 * decodes), but a value an operator writes must be one the rules understand: a misspelt severity
 * ranks as "just below MEDIUM" and would widen the rule, a misspelt type or classification would
 * silently never match. Each problem names the path, the value and the known values. `at` is the
 * path of the `when` itself.
 */
export const unknownNames = (when: VerdictWhen & Pick<RuleWhen, "author">, at: string): Array<ConfigProblem> => {
  const out: Array<ConfigProblem> = []
  const check = (
    values: ReadonlyArray<string> | undefined,
    known: ReadonlyArray<string>,
    key: string,
    what: string,
    single = false
  ) => {
    for (const [i, value] of (values ?? []).entries()) {
      if (known.includes(value)) continue
      const hint = suggest(value, known)
      out.push({
        path: `${at}.${key}${single ? "" : `.${i}`}`,
        message: `'${value}' is not ${article(what)} ${what} the rules know${hint === undefined ? "" : `; did you mean ${hint}?`} (known: ${known.join(", ")})`
      })
    }
  }
  const classifications = [...TEXT_CLASSIFICATIONS, ...IMAGE_CLASSIFICATIONS]
  const one = (value: string | undefined) => (value === undefined ? undefined : [value])
  check(when.type, ANALYSIS_TYPES, "type", "analysis type")
  check(when.recommendedAction, RECOMMENDED_ACTIONS, "recommendedAction", "recommended action")
  check(one(when.severityAtLeast), SEVERITIES, "severityAtLeast", "severity", true)
  check(when.classifications?.anyOf, classifications, "classifications.anyOf", "classification")
  check(when.classifications?.allOf, classifications, "classifications.allOf", "classification")
  check(when.directedAt, DIRECTED_AT, "directedAt", "directedAt value")
  check(when.author?.type, ANALYSIS_TYPES, "author.type", "analysis type")
  check(one(when.author?.severityAtLeast), SEVERITIES, "author.severityAtLeast", "severity", true)
  return out
}

/** The problems of a source's rules; `at` is where the list sits (`sources.0.rules`, `rules`). */
export const check = (rules: ReadonlyArray<CheckedRule>, at: string, context: Context = {}): Array<ConfigProblem> => {
  const problems: Array<ConfigProblem> = []
  const names = new Map<string, number>()
  const known =
    context.sinkNames === undefined ? undefined : [...new Set(context.sinkNames.filter((n) => n !== undefined))]
  rules.forEach((rule, r) => {
    const here = `${at}.${r}`
    const seen = rule.name === undefined ? undefined : names.get(rule.name)
    if (seen !== undefined)
      problems.push({ path: `${here}.name`, message: `duplicate rule name '${rule.name}' (also rules.${seen})` })
    else if (rule.name !== undefined) names.set(rule.name, r)
    problems.push(...unknownNames(rule.when, `${here}.when`))
    if (known !== undefined) {
      rule.sinks?.forEach((name, s) => {
        if (!known.includes(name))
          problems.push({
            path: `${here}.sinks.${s}`,
            message: `no sink named '${name}'; sinks: ${known.length === 0 ? "(none)" : known.join(", ")}`
          })
      })
    }
  })
  if (context.connector !== undefined) problems.push(...connectorActions(rules, at, context.connector))
  return problems
}

/** The problems of rule actions the source's connector does not declare. */
export const connectorActions = (
  rules: ReadonlyArray<Pick<CheckedRule, "actions">>,
  at: string,
  connector: NonNullable<Context["connector"]>
): Array<ConfigProblem> => {
  const can = connector.actions
  return rules.flatMap((rule, r) =>
    rule.actions.flatMap((action, a) =>
      can.includes(action.kind)
        ? []
        : [
            {
              path: `${at}.${r}.actions.${a}`,
              message: `connector ${connector.type} cannot '${action.kind}'; it can: ${can.length === 0 ? "(none)" : can.join(", ")}`
            }
          ]
    )
  )
}
