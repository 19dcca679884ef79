/**
 * The JSON Schema (draft 2020-12) of the config file, for `warden config schema` and editors
 * (`# yaml-language-server: $schema=...`). Each installed connector's config schema is included: a
 * source with `type: rss` gets `config` validated by the rss connector's schema (`if`/`then`), with
 * the connector's descriptions and its secret fields marked (`writeOnly`). Given a config
 * file, the `module:` plugins (and other `type:` packages) its sources name are included the same way.
 */
import { readFile } from "node:fs/promises"
import { dirname, resolve as resolvePath } from "node:path"
import { Connector, type ConnectorRegistry } from "@warden/connector"
import { Sink as SinkPlugin, type SinkRegistry } from "@warden/sink"
import { Effect, JsonSchema, Schema } from "effect"
import { parse } from "yaml"
import { ConfigError, type ConfigProblem } from "./ConfigError.ts"
import * as Connectors from "./Connectors.ts"
import * as Sinks from "./Sinks.ts"
import { WardenConfigFile } from "./WardenConfig.ts"

type Json = Record<string, any>

const without = (list: unknown, key: string): Array<string> =>
  (Array.isArray(list) ? list : []).filter((k): k is string => typeof k === "string" && k !== key)

/** A `module:` plugin a config file names: the source's `module` value and the connector it exports. */
export interface Plugin {
  readonly module: string
  readonly connector: Connector.Connector
}

/**
 * Builds the document from the given connectors (selected by `type`) and plugins (by `module`). Struct-level rules the generator does not carry
 * (exactly one of `type`/`module`, at most one of `sqlite`/`postgres`, `action` when `mode: reject`)
 * are added by hand; `api` and `api.apiKey` are optional because `WARDEN_*` variables may supply them.
 */
export const make = (
  connectors: ReadonlyArray<Connector.Connector>,
  plugins: ReadonlyArray<Plugin> = [],
  sinks: ReadonlyArray<SinkPlugin.Sink> = Sinks.BUILTINS,
  sinkModules: ReadonlyArray<{ readonly module: string; readonly sink: SinkPlugin.Sink }> = []
): Json => {
  const doc = Schema.toJsonSchemaDocument(WardenConfigFile, { onExcessProperty: "error" })
  const root = structuredClone(doc.schema) as Json
  const defs: Json = { ...(structuredClone(doc.definitions) as Json) }

  /** A plugin's own definitions, shared by name: the same one twice (one plugin under two names) is fine; two different ones under one name are not. */
  const addDefinitions = (definitions: Json | undefined, owner: string) => {
    for (const [def, body] of Object.entries(definitions ?? {})) {
      if (def in defs && JSON.stringify(defs[def]) !== JSON.stringify(body))
        throw new Error(`JSON Schema definition ${def} of ${owner} clashes with another of the same name`)
      defs[def] = body
    }
  }

  root.required = without(root.required, "api")
  if (root.required.length === 0) delete root.required
  const api = root.properties.api as Json
  api.required = without(api.required, "apiKey")
  if (api.required.length === 0) delete api.required
  // A `required` whose properties are defined beside it (as `true`: no constraint added), as Ajv's strict
  // mode (strictRequired) asks of a schema; the rule itself is unchanged.
  const requires = (...keys: Array<string>): Json => ({
    properties: Object.fromEntries(keys.map((k) => [k, true])),
    required: keys
  })
  root.properties.state.not = requires("sqlite", "postgres")

  const source = root.properties.sources.items as Json
  source.oneOf = [requires("type"), requires("module")]
  source.properties.failureMode.if = { properties: { mode: { const: "reject" } }, required: ["mode"] }
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
  source.properties.failureMode.then = requires("action")

  const branches: Array<Json> = []
  const add = (connector: Connector.Connector, key: "type" | "module", value: string, name: string) => {
    const { $schema: _, $defs, ...schema } = Connector.configJsonSchema(connector) as Json
    addDefinitions($defs, `connector ${connector.type}`)
    defs[name] = { description: `Config of a source with ${key}: ${value}`, ...schema }
    branches.push({
      if: { properties: { [key]: { const: value } }, required: [key] },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: { properties: { config: { $ref: `#/$defs/${name}` } } }
    })
  }
  for (const connector of connectors) add(connector, "type", connector.type, `connector-${connector.type}`)
  for (const [i, plugin] of plugins.entries())
    add(plugin.connector, "module", plugin.module, `module-${i}-${plugin.connector.type}`)
  if (branches.length > 0) source.allOf = branches

  // Sinks: one variant per known sink (its type, the settings every sink has, its own keys from its
  // config schema), and one for a `module:` plugin, whose keys only the plugin knows.
  const entry = root.properties.sinks.items as Json
  const base = Object.fromEntries(
    Object.entries(entry.properties as Json).filter(([k]) => k !== "type" && k !== "module")
  )
  const variant = (sink: SinkPlugin.Sink, key: "type" | "module", value: string): Json => {
    const { $schema: _, $defs, ...schema } = SinkPlugin.configJsonSchema(sink) as Json
    addDefinitions($defs, `sink ${sink.type}`)
    return {
      type: "object",
      properties: { [key]: { type: "string", enum: [value] }, ...base, ...(schema.properties ?? {}) },
      required: [key, ...(schema.required ?? [])],
      additionalProperties: false
    }
  }
  const known = sinkModules.map((m) => m.module)
  root.properties.sinks.items = {
    anyOf: [
      ...sinks.map((sink) => variant(sink, "type", sink.type)),
      ...sinkModules.map(({ module, sink }) => variant(sink, "module", module)),
      {
        type: "object",
        properties: { module: entry.properties.module, ...base },
        required: ["module"],
        not: {
          anyOf: [requires("type"), ...(known.length > 0 ? [{ properties: { module: { enum: known } } }] : [])]
        }
      }
    ]
  }

  return {
    $schema: JsonSchema.META_SCHEMA_URI_DRAFT_2020_12,
    $id: "https://warden.dev/schemas/warden-config.json",
    title: "Warden daemon configuration (warden.yaml)",
    ...root,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {})
  }
}

/** The connectors of {@link Connectors.KNOWN_TYPES} that are installed (importable from the daemon). */
export const installedConnectors: Effect.Effect<ReadonlyArray<Connector.Connector>> = Effect.map(
  Effect.forEach(Connectors.KNOWN_TYPES, (type) => Effect.option(Connectors.resolve(process.cwd(), { type }))),
  (found) => found.flatMap((o) => (o._tag === "Some" ? [o.value] : []))
)

/** The built-in sinks and those of {@link Sinks.KNOWN_TYPES} that are installed. */
export const installedSinks: Effect.Effect<ReadonlyArray<SinkPlugin.Sink>> = Effect.map(
  Effect.forEach(Sinks.KNOWN_TYPES, (type) => Effect.option(Sinks.resolve(process.cwd(), { type }))),
  (found) => [...Sinks.BUILTINS, ...found.flatMap((o) => (o._tag === "Some" ? [o.value] : []))]
)

/** The JSON Schema of the config file with every installed connector's and sink's config. */
export const document: Effect.Effect<Json> = Effect.map(Effect.zip(installedConnectors, installedSinks), ([c, s]) =>
  make(c, [], s)
)

interface Reference {
  readonly path: string
  readonly ref: ConnectorRegistry.ConnectorRef
}

/**
 * The `type:` and `module:` references of a config file's sources, read leniently (the schema is
 * wanted most when the file is still wrong): each with its path, for a problem that names it.
 */
const references = (document: unknown): Array<Reference> => {
  const sources = typeof document === "object" && document !== null ? (document as Json).sources : undefined
  if (!Array.isArray(sources)) return []
  return sources.flatMap((source, i): Array<Reference> => {
    if (typeof source !== "object" || source === null) return []
    const { type, module } = source as Json
    if (typeof module === "string") return [{ path: `sources.${i}.module`, ref: { module } }]
    if (typeof type === "string" && !Connectors.KNOWN_TYPES.includes(type))
      return [{ path: `sources.${i}.type`, ref: { type } }]
    return []
  })
}

/** The `module:` and other `type:` references of a config file's sinks, read leniently, each with its path. */
const sinkReferences = (document: unknown): Array<{ readonly path: string; readonly ref: SinkRegistry.SinkRef }> => {
  const sinks = typeof document === "object" && document !== null ? (document as Json).sinks : undefined
  if (!Array.isArray(sinks)) return []
  return sinks.flatMap((sink, i): Array<{ readonly path: string; readonly ref: SinkRegistry.SinkRef }> => {
    if (typeof sink !== "object" || sink === null) return []
    const { type, module } = sink as Json
    if (typeof module === "string") return [{ path: `sinks.${i}.module`, ref: { module } }]
    if (typeof type === "string" && !Sinks.BUILTINS.some((s) => s.type === type) && !Sinks.KNOWN_TYPES.includes(type))
      return [{ path: `sinks.${i}.type`, ref: { type } }]
    return []
  })
}

/**
 * The JSON Schema with every installed connector's config and the config of each `module:` plugin
 * (and `type:` package beyond the first-party ones) the sources and sinks of `file` name. Fails with the
 * problems when the file cannot be read or parsed, or a plugin cannot be loaded.
 */
export const documentFor = Effect.fn("ConfigJsonSchema.documentFor")(function* (file: string) {
  const fail = (problems: ReadonlyArray<ConfigProblem>) => Effect.fail(new ConfigError({ file, problems }))
  const text = yield* Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: () => undefined
  }).pipe(Effect.catch(() => fail([{ path: "", message: `cannot read ${file}` }])))
  const document = yield* Effect.try({ try: () => parse(text) as unknown, catch: () => undefined }).pipe(
    Effect.catch(() => fail([{ path: "", message: "YAML syntax error (run `warden config check` for where)" }]))
  )
  const baseDirectory = dirname(resolvePath(file))
  const problems: Array<ConfigProblem> = []
  const connectors = [...(yield* installedConnectors)]
  const plugins: Array<Plugin> = []
  for (const { path, ref } of references(document)) {
    const connector = yield* Connectors.resolve(baseDirectory, ref).pipe(
      Effect.catch((error) => Effect.sync(() => void problems.push({ path, message: error.message })))
    )
    if (connector === undefined) continue
    if ("module" in ref) {
      if (!plugins.some((p) => p.module === ref.module)) plugins.push({ module: ref.module, connector })
    } else if (!connectors.some((c) => c.type === connector.type)) connectors.push(connector)
  }
  const sinks = [...(yield* installedSinks)]
  const sinkModules: Array<{ module: string; sink: SinkPlugin.Sink }> = []
  for (const { path, ref } of sinkReferences(document)) {
    const sink = yield* Sinks.resolve(baseDirectory, ref).pipe(
      Effect.catch((error) => Effect.sync(() => void problems.push({ path, message: error.message })))
    )
    if (sink === undefined) continue
    if ("module" in ref) {
      if (!sinkModules.some((m) => m.module === ref.module)) sinkModules.push({ module: ref.module, sink })
    } else if (!sinks.some((s) => s.type === sink.type)) sinks.push(sink)
  }
  if (problems.length > 0) return yield* fail(problems)
  return make(connectors, plugins, sinks, sinkModules)
})
