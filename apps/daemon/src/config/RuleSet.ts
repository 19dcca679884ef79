/**
 * A list of rules given on its own, outside a config file: `warden policy test --rules FILE` and the
 * body of `POST /api/policy/test`. Decoded with the config's own `Rule` schema (every problem at
 * once, each at its path), plus the check the config does across rules: unique names.
 */
import { Schema } from "effect"
import type { ConfigProblem } from "./ConfigError.ts"
import { fromIssue } from "./internal/Problems.ts"
import { Rule } from "./WardenConfig.ts"

/** Rules as a list, or a mapping with a `rules` list (so a source's `rules:` block can be pasted as is). */
const RuleList = Schema.Array(Rule)

/** Decodes a rule set; `prefix` is where it sits (`rules`, a body's `rules`). */
export const decode = (
  input: unknown,
  prefix: ReadonlyArray<PropertyKey> = ["rules"]
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
  const seen = new Map<string, number>()
  const problems: Array<ConfigProblem> = []
  rules.forEach((rule, i) => {
    const first = seen.get(rule.name)
    if (first !== undefined)
      problems.push({
        path: [...prefix, i, "name"].map(String).join("."),
        message: `duplicate rule name '${rule.name}' (also ${[...prefix, first].map(String).join(".")})`
      })
    else seen.set(rule.name, i)
  })
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rules }
}
