/**
 * Decoding the config file so that one run shows every problem: all the issues of a schema, a key
 * decoded on its own when its struct's checks would hide it, and a value that was one reference alone
 * (`${env:N}`) read as the number or boolean the schema expects.
 */
import { Schema } from "effect"
import type { ConfigProblem } from "../ConfigError.ts"
import { fromIssue } from "./Problems.ts"

/** A YAML mapping (or any plain object) as written. */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Decodes one key of a record on its own: its value, or `fallback` when it does not decode. Its
 * problems go to `problems` (at `prefix`): a check on a key (a bound, a relation) only runs once its
 * whole struct decodes, so decoding key by key is what shows every problem in one run.
 */
export const keyOf =
  (
    entry: Record<string, unknown>,
    problems?: Array<ConfigProblem>,
    prefix: ReadonlyArray<PropertyKey> = [],
    whole?: ReadonlySet<string>
  ) =>
  <S extends Schema.Top & { readonly DecodingServices: never }, F extends S["Type"] | undefined>(
    name: string,
    schema: S,
    fallback: F
  ): S["Type"] | F => {
    const input = Object.hasOwn(entry, name) ? { [name]: entry[name] } : {}
    const r = decode(Schema.Struct({ [name]: schema }), input, prefix, "ignore", whole)
    if (!r.ok) problems?.push(...r.problems)
    return r.ok ? (r.value as Record<string, S["Type"]>)[name] : fallback
  }

/**
 * Decodes with every problem reported, problems prefixed with `prefix`. A string that was one
 * reference alone (a path in `whole`, e.g. `maxAttempts: ${env:N}`) is read as the number or boolean
 * the schema expects there, then the input is decoded again: YAML has typed the value as a string,
 * the operator meant the variable's value.
 */
export const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  input: unknown,
  prefix: ReadonlyArray<PropertyKey> = [],
  onExcessProperty: "error" | "ignore" = "error",
  whole: ReadonlySet<string> = new Set()
):
  | { readonly ok: true; readonly value: S["Type"] }
  | { readonly ok: false; readonly problems: Array<ConfigProblem> } => {
  const result = Schema.decodeUnknownExit(schema, { errors: "all", onExcessProperty })(input)
  if (result._tag === "Success") return { ok: true, value: result.value }
  const problems: Array<ConfigProblem> = []
  for (const reason of result.cause.reasons) {
    if (reason._tag === "Fail" && Schema.isSchemaError(reason.error))
      problems.push(...fromIssue(reason.error.issue, prefix))
    else problems.push({ path: prefix.map(String).join("."), message: String(reason) })
  }
  const coerced = whole.size > 0 ? coerceReferences(input, prefix, problems, whole) : undefined
  return coerced === undefined ? { ok: false, problems } : decode(schema, coerced, prefix, onExcessProperty)
}

/**
 * A copy of `input` with the whole-reference strings that failed as "expected number/boolean" turned
 * into that type; `undefined` when there is none to turn (or the string is no number or boolean).
 */
const coerceReferences = (
  input: unknown,
  prefix: ReadonlyArray<PropertyKey>,
  problems: ReadonlyArray<ConfigProblem>,
  whole: ReadonlySet<string>
): unknown => {
  const base = prefix.map(String).join(".")
  let copy: unknown
  let changed = false
  for (const problem of problems) {
    if (!whole.has(problem.path)) continue
    const wanted = /^expected (number|boolean)\b/u.exec(problem.message)?.[1]
    if (wanted === undefined) continue
    const relative = (base === "" ? problem.path : problem.path.slice(base.length + 1)).split(".")
    copy ??= structuredClone(input)
    let parent: any = copy
    for (const key of relative.slice(0, -1)) parent = parent?.[key]
    const key = relative[relative.length - 1]!
    const text = parent?.[key]
    if (typeof text !== "string") continue
    const value =
      wanted === "number"
        ? /^\s*-?\d+(\.\d+)?\s*$/u.test(text)
          ? Number(text)
          : undefined
        : text === "true" || text === "false"
          ? text === "true"
          : undefined
    if (value === undefined) continue
    parent[key] = value
    changed = true
  }
  return changed ? copy : undefined
}
