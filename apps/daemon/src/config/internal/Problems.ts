/**
 * Turns a Schema issue tree into `{ path, message }` problems a user can act on: unknown keys get a
 * "did you mean" hint, unions name the accepted discriminator values.
 */
import { ConfigDuration } from "@warden/connector"
import { type SchemaAST, SchemaIssue } from "effect"
import type { ConfigProblem } from "../ConfigError.ts"

/** The Levenshtein distance of two strings. */
export const levenshtein = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = tmp
    }
  }
  return row[b.length]!
}

/** The closest known key, when close enough to be a typo. */
export const suggest = (key: string, known: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of known) {
    const d = levenshtein(key.toLowerCase(), candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined
}

/** The message of an unknown key among `known`. */
export const unknownKeyMessage = (key: string, known: ReadonlyArray<string>): string => {
  const hint = suggest(key, known)
  if (hint !== undefined) return `unknown key; did you mean ${hint}?`
  return known.length === 0 ? "unknown key" : `unknown key; known keys: ${known.join(", ")}`
}

const keysOf = (ast: SchemaAST.AST): ReadonlyArray<string> =>
  ast._tag === "Objects" ? ast.propertySignatures.map((p) => String(p.name)) : []

const literalValuesOf = (ast: SchemaAST.AST, key: string): ReadonlyArray<string> => {
  if (ast._tag !== "Objects") return []
  const p = ast.propertySignatures.find((p) => p.name === key)
  return p !== undefined && p.type._tag === "Literal" ? [String(p.type.literal)] : []
}

const standard = SchemaIssue.makeFormatterStandardSchemaV1()

const DURATION_MESSAGE = ConfigDuration.expected

const structural = new Set(["Pointer", "Composite", "AnyOf", "Encoding", "UnexpectedKey"])

const tidy = (message: string): string => {
  if (message === "Missing key") return "required key is missing"
  if (message === "Expected a valid Duration string") return DURATION_MESSAGE
  if (message.startsWith("Expected ") && message.length < 60) return `expected ${message.slice("Expected ".length)}`
  return message
}

/** Flattens an issue tree into problems, every path prefixed with `prefix`. */
export const fromIssue = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<PropertyKey> = []): Array<ConfigProblem> => {
  const out: Array<ConfigProblem> = []
  const at = (path: ReadonlyArray<PropertyKey>) => path.map(String).join(".")
  const walk = (i: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): void => {
    switch (i._tag) {
      case "Pointer":
        walk(i.issue, [...path, ...i.path])
        return
      case "Composite":
        for (const c of i.issues) walk(c, path)
        return
      case "Encoding":
      case "Filter":
        if (structural.has(i.issue._tag)) {
          walk(i.issue, path)
          return
        }
        break
      case "UnexpectedKey": {
        const key = String(path[path.length - 1] ?? "")
        out.push({ path: at(path), message: unknownKeyMessage(key, keysOf(i.ast)) })
        return
      }
      case "AnyOf": {
        if (i.issues.length > 0) {
          for (const c of i.issues) walk(c, path)
          return
        }
        const tags = i.ast.types.flatMap((t) => literalValuesOf(t, "type"))
        if (tags.length === i.ast.types.length && tags.length > 0) {
          out.push({ path: at([...path, "type"]), message: `expected one of ${tags.join(", ")}` })
          return
        }
        break
      }
      case "InvalidType":
        if (String(i.ast.annotations?.description ?? "").startsWith("A duration")) {
          out.push({ path: at(path), message: DURATION_MESSAGE })
          return
        }
        break
      default:
        break
    }
    for (const s of standard(i).issues) {
      out.push({
        path: at([...path, ...(s.path ?? []).map((p) => (typeof p === "object" ? p.key : p))]),
        message: tidy(s.message)
      })
    }
  }
  walk(issue, prefix)
  return out
}
