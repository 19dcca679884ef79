/**
 * The `{ field, message }` shape of a 400's `fieldViolations`, and the one function that turns a
 * Schema parse issue into that list. The client (before sending) and the sandbox (answering) both
 * use it, so a user sees the same field paths from either.
 */
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

/** One invalid field: its dotted path (`post.countryCode`, `contents.3.text`) and what is wrong. */
export const FieldViolation = Schema.Struct({
  field: Schema.String,
  message: Schema.String
}).annotate({ identifier: "FieldViolation" })
export type FieldViolation = typeof FieldViolation.Type

const pathSegment = (segment: PropertyKey): string =>
  typeof segment === "symbol" ? (segment.description ?? "") : String(segment)

/** A dotted field path from a parse issue path; the body itself is the empty path `""`. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => path.map(pathSegment).join(".")

const got = (issue: SchemaIssue.InvalidType): string => {
  if (!SchemaIssue.hasInput(issue)) return ""
  const value = issue.input
  const shown = Array.isArray(value) ? "an array" : value === null ? "null" : (JSON.stringify(value) ?? typeof value)
  return `, got ${shown.length > 40 ? `${shown.slice(0, 40)}...` : shown}`
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => {
    switch (issue._tag) {
      case "MissingKey":
        return REQUIRED
      case "UnexpectedKey":
        return "is not a known field"
      case "InvalidType":
        // The default names the schema's identifier ("Expected LegacyMessageOnWire"): an internal name
        // a user cannot act on. Say what shape was expected instead.
        if (issue.ast._tag === "Objects") return `Expected an object${got(issue)}`
        if (issue.ast._tag === "Arrays") return `Expected an array${got(issue)}`
        return SchemaIssue.defaultLeafHook(issue)
      default:
        return SchemaIssue.defaultLeafHook(issue)
    }
  }
})

const REQUIRED = "is required"

const leaves = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Array<FieldViolation> =>
  formatter(issue).issues.map((item) => ({
    field: formatPath([...path, ...(item.path ?? []).map((p) => (typeof p === "object" && p !== null ? p.key : p))]),
    message: item.message
  }))

/**
 * A union that no member matched reports every member's failures, which reads as noise ("imageUrl is
 * required" next to "imageData must be base64"). Report the member the input came closest to: the
 * fewest missing fields, then the fewest violations; when members tie on missing fields alone, one
 * line saying which fields are alternatives.
 */
const closestMember = (
  members: ReadonlyArray<Array<FieldViolation>>,
  path: ReadonlyArray<PropertyKey>
): Array<FieldViolation> => {
  const missing = (vs: Array<FieldViolation>) => vs.filter((v) => v.message === REQUIRED).length
  const fewestMissing = Math.min(...members.map(missing))
  const candidates = members.filter((vs) => missing(vs) === fewestMissing)
  const fewest = Math.min(...candidates.map((vs) => vs.length))
  const best = candidates.filter((vs) => vs.length === fewest)
  if (best.length === 1) return best[0]!
  if (best.every((vs) => vs.length === 1 && vs[0]!.message === REQUIRED)) {
    const names = best.map((vs) => vs[0]!.field.split(".").at(-1))
    return [{ field: formatPath(path), message: `needs one of ${names.join(", ")}` }]
  }
  return best.flat()
}

const walk = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Array<FieldViolation> => {
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...issue.path])
    case "Composite":
      return issue.issues.flatMap((sub) => walk(sub, path))
    case "AnyOf":
      return issue.issues.length === 0
        ? leaves(issue, path)
        : closestMember(
            issue.issues.map((sub) => walk(sub, path)),
            path
          )
    default:
      return leaves(issue, path)
  }
}

/** Every violation in a parse issue, one per failing field and message, in a stable order. */
export const fromIssue = (issue: SchemaIssue.Issue): Array<FieldViolation> => {
  const seen = new Set<string>()
  return walk(issue, []).filter((v) => {
    const key = `${v.field}\u0000${v.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** Every violation of a `SchemaError` (decode with `{ errors: "all" }` to get them all at once). */
export const fromSchemaError = (error: Schema.SchemaError): Array<FieldViolation> => fromIssue(error.issue)

/** `field: message` lines, as the CLI and logs print them. */
export { formatViolations } from "./internal/formatViolations.ts"
