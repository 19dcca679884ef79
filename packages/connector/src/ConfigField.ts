/**
 * Annotations on the fields of a connector's config schema, read by the daemon's tooling (as Benthos'
 * `ConfigSpec` marks a field secret for docs and lint).
 *
 * A field marked {@link secret} (a token, a client secret, a password) appears in `warden config schema`
 * with `writeOnly: true` (the standard JSON Schema keyword: strict validators such as Ajv accept it), and `warden config check` warns when the config
 * file writes its value inline instead of through `${env:NAME}` or `${file:path}`.
 *
 * ```ts
 * const Config = Schema.Struct({
 *   token: ConfigField.secret(Schema.RedactedFromValue(Schema.String), { description: "The bot token" }),
 *   password: Schema.optionalKey(Schema.String.annotate(ConfigField.Secret))
 * })
 * ```
 *
 * A field marked {@link path} (an output file, a cursor file, a CA bundle) holds a file path: the daemon
 * resolves a relative one against the config file's directory before decoding ({@link resolvePaths}), so
 * the same config file names the same files wherever `warden run` is started. Its description in
 * `warden config schema` says so.
 *
 * ```ts
 * const Config = Schema.Struct({
 *   file: ConfigField.path(Schema.String, { description: "The CSV file rows are appended to" }),
 *   caFiles: Schema.optionalKey(Schema.Array(ConfigField.path(Schema.String)))
 * })
 * ```
 *
 * The marks are plain annotation keys read from the schema's AST, so they work whichever copy of
 * `effect` built the schema.
 *
 * @since 0.2.0
 */
import { isAbsolute, resolve } from "node:path"
import { JsonSchema, Schema, type SchemaAST } from "effect"

/** A mark: `annotations` and the description given, on any schema. */
const marker =
  (annotations: Record<string, unknown>) =>
  <S extends Schema.Top>(schema: S, options?: { readonly description?: string | undefined }): S["Rebuild"] =>
    schema.annotate({
      ...annotations,
      ...(options?.description === undefined ? {} : { description: options.description })
    })

/** The annotation key that marks a secret field (in the schema's AST; the JSON Schema says `writeOnly`). */
export const secretKey = "x-warden-secret"

/**
 * The annotations of a secret field, for `schema.annotate(ConfigField.Secret)`; prefer
 * {@link secret}, which also keeps the description through `Redacted`.
 */
export const Secret = { [secretKey]: true, writeOnly: true } as const

/**
 * Marks a config field secret: its value is a credential the config file should reference
 * (`${env:NAME}`, `${file:path}`) rather than contain. Works on any schema (`RedactedFromValue`, a plain
 * `String`, an optional key's inner schema, an array's items).
 */
export const secret = marker(Secret)

/** The annotation key that marks a file path field (in the schema's AST; the JSON Schema's description says it). */
export const pathKey = "x-warden-path"

/** The annotations of a file path field, for `schema.annotate(ConfigField.Path)`; or use {@link path}. */
export const Path = { [pathKey]: true } as const

/**
 * Marks a config field as a file path: a relative value is resolved against the config file's
 * directory before the config is decoded ({@link resolvePaths}); an absolute one is kept. `~` is not
 * expanded (a value `~/x` is the relative path `./~/x`): write the home directory out, or use
 * `${env:HOME}/x`. Works on any string schema (an optional key's inner schema, an array's items).
 *
 * @since 0.2.0
 */
export const path = marker(Path)

/**
 * A field of a schema: its path (`"*"` for any element of an array), its description, whether secret,
 * whether a file path ({@link path}).
 */
export interface Field {
  readonly path: ReadonlyArray<string>
  readonly description: string | undefined
  readonly secret: boolean
  readonly filePath: boolean
}

/** A secret field of a schema: its path (`"*"` for any element of an array) and its description. */
export interface SecretField {
  readonly path: ReadonlyArray<string>
  readonly description: string | undefined
}

// `annotate` on a schema with checks annotates its last check: read that too.
const annotationsOf = (ast: SchemaAST.AST): Record<string, unknown> => ({
  ...(ast.context?.annotations ?? {}),
  ...(ast.annotations ?? {}),
  ...(ast.checks?.at(-1)?.annotations ?? {})
})

/**
 * Every field of a schema (struct keys and array items, at any depth), as path patterns with the
 * field's own annotations. Walks the decoded side's structure (structs, arrays, unions, recursive
 * schemas), whose keys are the config file's keys.
 */
export const fields = (schema: Schema.Top): ReadonlyArray<Field> => {
  const found: Array<Field> = []
  const seen = new Set<SchemaAST.AST>()
  // `member`: a union's member, whose description is of that member, not of the field.
  const walk = (ast: SchemaAST.AST, path: ReadonlyArray<string>, member = false): void => {
    if (seen.has(ast)) return
    const annotations = annotationsOf(ast)
    const secret = annotations[secretKey] === true
    const filePath = annotations[pathKey] === true
    if (path.length > 0 && (!member || secret || filePath)) {
      const description = member ? undefined : annotations.description
      found.push({ path, description: typeof description === "string" ? description : undefined, secret, filePath })
    }
    seen.add(ast)
    switch (ast._tag) {
      case "Objects":
        for (const ps of ast.propertySignatures) if (typeof ps.name === "string") walk(ps.type, [...path, ps.name])
        for (const index of ast.indexSignatures) walk(index.type, [...path, "*"])
        break
      case "Arrays":
        for (const element of [...ast.elements, ...ast.rest]) walk(element, [...path, "*"])
        break
      case "Union":
        for (const type of ast.types) walk(type, path, true)
        break
      case "Suspend":
        walk(ast.thunk(), path)
        break
    }
    seen.delete(ast)
  }
  walk(schema.ast, [])
  // A union's members may name a path twice: the first description and any secret or path mark win.
  const byPath = new Map<string, Field>()
  for (const f of found) {
    const key = f.path.join("\u0000")
    const before = byPath.get(key)
    byPath.set(
      key,
      before === undefined
        ? f
        : {
            ...before,
            description: before.description ?? f.description,
            secret: before.secret || f.secret,
            filePath: before.filePath || f.filePath
          }
    )
  }
  return [...byPath.values()]
}

/** Every field of a schema marked {@link secret}, as path patterns (see {@link fields}). */
export const secretFields = (schema: Schema.Top): ReadonlyArray<SecretField> =>
  fields(schema).flatMap((f) => (f.secret ? [{ path: f.path, description: f.description }] : []))

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The places in `input` that hold a string in a field of `patterns` (see {@link secretValues}). */
const stringsAt = (
  patterns: ReadonlyArray<ReadonlyArray<string>>,
  input: unknown
): ReadonlyArray<ReadonlyArray<string | number>> => {
  const out: Array<ReadonlyArray<string | number>> = []
  const visit = (value: unknown, pattern: ReadonlyArray<string>, at: ReadonlyArray<string | number>): void => {
    if (pattern.length === 0) {
      if (typeof value === "string") out.push(at)
      return
    }
    const [head, ...rest] = pattern as [string, ...Array<string>]
    if (head === "*") {
      if (Array.isArray(value)) for (const [i, v] of value.entries()) visit(v, rest, [...at, i])
      else if (isRecord(value)) for (const [k, v] of Object.entries(value)) visit(v, rest, [...at, k])
    } else if (isRecord(value) && head in value) visit(value[head], rest, [...at, head])
  }
  for (const pattern of patterns) visit(input, pattern, [])
  const unique = new Map(out.map((p) => [p.join("\u0000"), p]))
  return [...unique.values()]
}

/**
 * The places in a config value (as the user wrote it) that hold a string in a secret field, each as
 * its path (`["oauth", "clientSecret"]`, `["accounts", 0, "token"]`).
 */
export const secretValues = (schema: Schema.Top, input: unknown): ReadonlyArray<ReadonlyArray<string | number>> =>
  stringsAt(
    secretFields(schema).map((f) => f.path),
    input
  )

/** The places in a config value (as written) that hold a string in a field marked {@link path}. */
export const pathValues = (schema: Schema.Top, input: unknown): ReadonlyArray<ReadonlyArray<string | number>> =>
  stringsAt(
    fields(schema).flatMap((f) => (f.filePath ? [f.path] : [])),
    input
  )

/**
 * A config value (as written, before decoding) with each relative, non-empty string in a field marked
 * {@link path} (struct keys, array and record items, at any depth) resolved against `baseDirectory`
 * (the config file's directory). Absolute paths and every other value are kept; `~` is not expanded.
 * Returns a copy (`input` is not changed).
 *
 * @since 0.2.0
 */
export const resolvePaths = (schema: Schema.Top, input: unknown, baseDirectory: string): unknown => {
  const absolute = (v: unknown) => (typeof v === "string" && v !== "" && !isAbsolute(v) ? resolve(baseDirectory, v) : v)
  return pathValues(schema, input).reduce((value, place) => updateAt(value, place, absolute), input)
}

/** `value` with `f` applied at `place`, the containers on the way copied. */
const updateAt = (value: unknown, place: ReadonlyArray<string | number>, f: (u: unknown) => unknown): unknown => {
  if (place.length === 0) return f(value)
  const [head, ...rest] = place as [string | number, ...Array<string | number>]
  if (Array.isArray(value) && typeof head === "number")
    return value.map((v, i) => (i === head ? updateAt(v, rest, f) : v))
  if (isRecord(value)) return { ...value, [head]: updateAt(value[head], rest, f) }
  return value
}

type Json = Record<string, unknown>

/** What the JSON Schema's description of a {@link path} field says of it (JSON Schema has no keyword for it). */
export const PATH_NOTE = "A file path, relative to the config file's directory unless absolute."

/**
 * Completes a JSON Schema generated from `schema` with what the generator drops: secret fields get
 * `writeOnly: true`, file path fields {@link PATH_NOTE} at the end of their description, and each field's own description is kept even through a transformation
 * (`Redacted`, a default, a duration), before the type's generic one (`The poll interval. A duration
 * such as ...`). Returns a completed copy.
 */
export const markJsonSchema = (schema: Schema.Top, document: Json): Json => {
  const doc = structuredClone(document)
  const defs = (isRecord(doc.$defs) ? doc.$defs : {}) as Json
  const deref = (node: Json): Json => {
    const ref = node.$ref
    if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
      const target = defs[ref.slice("#/$defs/".length)]
      if (isRecord(target)) return target
    }
    return node
  }
  const branches = (node: Json): Array<Json> => {
    const self = deref(node)
    const nested = ["anyOf", "oneOf", "allOf"].flatMap((k) =>
      Array.isArray(self[k]) ? (self[k] as Array<unknown>) : []
    )
    return [self, ...nested.filter(isRecord).flatMap(branches)]
  }
  const mark = (node: Json, path: ReadonlyArray<string>, field: Field): void => {
    if (path.length === 0) {
      if (field.secret) node.writeOnly = true
      const own = field.description
      const generic = node.description
      if (own !== undefined && generic !== own && !(typeof generic === "string" && generic.startsWith(own)))
        node.description = typeof generic === "string" ? `${own.replace(/\.$/u, "")}. ${generic}` : own
      const said = node.description
      if (field.filePath && !(typeof said === "string" && said.endsWith(PATH_NOTE)))
        node.description = typeof said === "string" ? `${said.replace(/\.$/u, "")}. ${PATH_NOTE}` : PATH_NOTE
      return
    }
    const [head, ...rest] = path as [string, ...Array<string>]
    for (const branch of branches(node)) {
      if (head === "*") {
        for (const k of ["items", "additionalProperties"]) if (isRecord(branch[k])) mark(branch[k] as Json, rest, field)
        if (Array.isArray(branch.prefixItems))
          for (const item of branch.prefixItems) if (isRecord(item)) mark(item, rest, field)
      } else if (isRecord(branch.properties) && isRecord(branch.properties[head])) {
        mark(branch.properties[head] as Json, rest, field)
      }
    }
  }
  for (const field of fields(schema))
    if (field.secret || field.filePath || field.description !== undefined) mark(doc, field.path, field)
  return doc
}

/**
 * The JSON Schema (draft 2020-12) of a plugin's config schema, for `warden config schema` and editors:
 * descriptions included, secret fields with `writeOnly: true`, file path fields said so in their
 * description ({@link markJsonSchema}). Excess
 * properties are rejected, as the plugins' config decoding does.
 */
export const jsonSchema = (schema: Schema.Top): Json => {
  const doc = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  return markJsonSchema(schema, {
    $schema: JsonSchema.META_SCHEMA_URI_DRAFT_2020_12,
    ...doc.schema,
    ...(Object.keys(doc.definitions).length > 0 ? { $defs: doc.definitions } : {})
  })
}
