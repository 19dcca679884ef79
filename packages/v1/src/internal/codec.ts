/** Local validation with core's schemas, and decoding of answers: shared by AnalyzeV1 and FeedbackV1. */
import {
  type CallInfo,
  FieldViolations,
  type FieldViolation,
  RequestValidationError,
  ResponseDecodeError,
  type WithRaw,
  withRaw
} from "@warden/core/client"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

/** The parse options the contract serves with: every violation at once, unknown fields refused. */
export const STRICT = { errors: "all", onExcessProperty: "error" } as const

type Validate = (input: unknown) => Result.Result<unknown, Array<FieldViolation>>
const validators = new WeakMap<Schema.Top, Validate>()

/**
 * Whether `decoded` has every key of `input`, at every depth: then a decode under the default options
 * dropped nothing, so {@link STRICT}'s `onExcessProperty: "error"` would have found nothing either.
 */
const keepsEveryKey = (input: unknown, decoded: unknown): boolean => {
  if (typeof input !== "object" || input === null) return true
  if (typeof decoded !== "object" || decoded === null) return false
  if (Array.isArray(input)) {
    if (!Array.isArray(decoded) || decoded.length !== input.length) return false
    for (let i = 0; i < input.length; i++) if (!keepsEveryKey(input[i], decoded[i])) return false
    return true
  }
  const keys = Object.keys(input)
  if (keys.length !== Object.keys(decoded).length) return false
  for (const key of keys) {
    if (!Object.hasOwn(decoded, key)) return false
    if (!keepsEveryKey((input as Record<string, unknown>)[key], (decoded as Record<string, unknown>)[key])) return false
  }
  return true
}

/**
 * The request check of a schema. Schema parses a struct with a plain loop only under the default
 * options; {@link STRICT} runs a generator per struct (~5% of the daemon's allocation per call). So a
 * schema that encodes to itself (no key renamed or dropped on decode) is decoded under the defaults
 * first, and a result that kept every key of the input is what STRICT would have returned; the STRICT
 * decode runs when that one fails or dropped a key, to name every violation (or pick another member
 * of a union that takes the extra key).
 */
const validatorOf = (schema: Schema.Top): Validate => {
  const known = validators.get(schema)
  if (known !== undefined) return known
  const codec = schema as unknown as Schema.Codec<unknown, unknown>
  const decode = Schema.decodeUnknownResult(codec)
  const quickFirst = encodesToItself(schema.ast)
  const validate: Validate = (input) => {
    if (quickFirst) {
      const quick = decode(input)
      if (Result.isSuccess(quick) && keepsEveryKey(input, quick.success)) return Result.succeed(quick.success)
    }
    const result = decode(input, STRICT)
    return Result.isSuccess(result)
      ? Result.succeed(result.success)
      : Result.fail(FieldViolations.fromSchemaError(result.failure))
  }
  validators.set(schema, validate)
  return validate
}

/** Decodes a request body as the server would, returning its violations (empty when valid). */
export const violationsOf = <S extends Schema.Top>(
  schema: S,
  input: unknown
): Result.Result<S["Type"], Array<FieldViolation>> =>
  validatorOf(schema)(input) as Result.Result<S["Type"], Array<FieldViolation>>

/**
 * Whether a value of `ast`'s type is already its own encoding: no node in it transforms (no
 * `encoding`, no checks of the encoded side, no declaration). Then a body decoded by
 * {@link violationsOf} is sent as it is, where encoding it again walked and checked it a second time
 * (the request bodies of core are such schemas: strings, numbers and literals with checks).
 */
export const encodesToItself = (ast: SchemaAST.AST, seen: Set<SchemaAST.AST> = new Set()): boolean => {
  if (seen.has(ast)) return true
  seen.add(ast)
  if (ast.encoding !== undefined) return false
  const all = (asts: ReadonlyArray<SchemaAST.AST>) => asts.every((a) => encodesToItself(a, seen))
  switch (ast._tag) {
    case "Declaration":
      return false
    case "Objects":
      return (
        ast.encodingChecks === undefined &&
        all(ast.propertySignatures.map((p) => p.type)) &&
        all(ast.indexSignatures.flatMap((i) => [i.parameter, i.type]))
      )
    case "Arrays":
      return ast.encodingChecks === undefined && all(ast.elements) && all(ast.rest)
    case "Union":
      return ast.encodingChecks === undefined && all(ast.types)
    case "Suspend":
      return encodesToItself(ast.thunk(), seen)
    default:
      return true
  }
}

/** Fails with `RequestValidationError` when there are violations. */
export const refuse = (endpoint: string, violations: ReadonlyArray<FieldViolation>) =>
  violations.length === 0
    ? Effect.void
    : Effect.fail(new RequestValidationError({ endpoint, fieldViolations: violations }))

/** Whether an index signature takes every key and every value: core's `Record(String, Unknown)` rest. */
const takesAnything = (index: SchemaAST.IndexSignature): boolean =>
  index.parameter._tag === "String" && index.parameter.checks === undefined && index.type._tag === "Unknown"

/**
 * `ast` without the index signatures that take anything, through its properties at every depth: a
 * value passes the guard of one exactly when it passes the other's. Schema checks a struct with an
 * index signature with a generator per struct, one without with a plain loop: the lenient answer
 * schemas' rests made the guard ~4% of the daemon's allocation.
 */
export const withoutOpenRests = (ast: SchemaAST.AST): SchemaAST.AST => {
  if (ast._tag !== "Objects" || ast.encoding !== undefined) return ast
  let changed = false
  const properties = ast.propertySignatures.map((property) => {
    const type = withoutOpenRests(property.type)
    if (type === property.type) return property
    changed = true
    return new SchemaAST.PropertySignature(property.name, type)
  })
  const indexes = ast.indexSignatures.filter((index) => !takesAnything(index))
  if (!changed && indexes.length === ast.indexSignatures.length) return ast
  return new SchemaAST.Objects(
    properties,
    indexes,
    ast.annotations,
    ast.checks,
    undefined,
    ast.context,
    ast.encodingChecks
  )
}

const guards = new WeakMap<Schema.Top, (u: unknown) => boolean>()
const guardOf = (schema: Schema.Top): ((u: unknown) => boolean) => {
  let guard = guards.get(schema)
  if (guard === undefined) {
    guard = Schema.is(Schema.make<Schema.Codec<unknown, unknown>>(withoutOpenRests(schema.ast)))
    guards.set(schema, guard)
  }
  return guard
}

/**
 * Decodes a 2xx answer's text with a response schema, keeping the JSON as received under `raw`;
 * anything else is `ResponseDecodeError`, carrying the call's request id and attempts.
 */
export const decodeAnswer = <S extends Schema.Top>(
  schema: S,
  endpoint: string,
  answer: { readonly status: number; readonly body: string } & CallInfo
): Effect.Effect<WithRaw<S["Type"]>, ResponseDecodeError> => {
  const fail = (detail: string) => Effect.fail(ResponseDecodeError.fromAnswer(endpoint, answer, detail))
  let json: unknown
  try {
    json = JSON.parse(answer.body)
  } catch {
    return fail("the body is not JSON")
  }
  // the response schemas have no transformations (Type = Encoded): a value that passes the guard is
  // its own decoded form, and the full decode runs only to describe a failure
  if (guardOf(schema)(json)) return Effect.succeed(withRaw(json as S["Type"] & object, json))
  const result = Schema.decodeUnknownResult(schema as unknown as Schema.Codec<S["Type"], unknown>)(json, {
    errors: "all"
  })
  return Result.isSuccess(result)
    ? Effect.succeed(withRaw(result.success as S["Type"] & object, json))
    : fail(FieldViolations.formatViolations(FieldViolations.fromSchemaError(result.failure)))
}
