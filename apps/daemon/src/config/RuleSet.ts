/**
 * A list of rules given on its own, outside a config file: `warden policy test --rules FILE` and the
 * body of `POST /api/policy/test`. Decoded with the config's own `Rule` schema (every problem at
 * once, each at its path), then the checks `config check` makes of a source's rules (RuleChecks:
 * unique names, known values, existing sinks, actions the source's connector declares), so a rule
 * the config would refuse is refused here too.
 */
import { Schema } from "effect"
import type { ConfigProblem } from "./ConfigError.ts"
import { fromIssue } from "./internal/Problems.ts"
import * as RuleChecks from "./RuleChecks.ts"
import { Rule } from "../domain/Rule.ts"

/** Rules as a list, or a mapping with a `rules` list (so a source's `rules:` block can be pasted as is). */
const RuleList = Schema.Array(Rule)

/** Decodes a rule set; `prefix` is where it sits (`rules`, a body's `rules`). */
export const decode = (
  input: unknown,
  prefix: ReadonlyArray<PropertyKey> = ["rules"],
  context: RuleChecks.Context = {}
):
  | { readonly ok: true; readonly rules: ReadonlyArray<Rule> }
  | { readonly ok: false; readonly problems: ReadonlyArray<ConfigProblem> } => {
  const list =
    typeof input === "object" && input !== null && !Array.isArray(input) && "rules" in input
      ? (input as { rules: unknown }).rules
      : input
  const result = Schema.decodeUnknownExit(RuleList, { errors: "all", onExcessProperty: "error" })(list)
  if (result._tag === "Failure") {
    const problems: Array<ConfigProblem> = []
    for (const reason of result.cause.reasons) {
      if (reason._tag === "Fail" && Schema.isSchemaError(reason.error))
        problems.push(...fromIssue(reason.error.issue, prefix))
      else problems.push({ path: prefix.map(String).join("."), message: String(reason) })
    }
    return { ok: false, problems }
  }
  const rules = result.value as ReadonlyArray<Rule>
  const problems = RuleChecks.check(rules, prefix.map(String).join("."), context)
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rules }
}
