/**
 * The JSON Schema (draft 2020-12) of the config file, for `warden config schema` and editors
 * (`# yaml-language-server: $schema=...`). Each installed connector's config schema is included: a
 * source with `type: rss` gets `config` validated by the rss connector's schema (`if`/`then`).
 */
import { Connector } from "@warden/connector"
import { Effect, JsonSchema, Schema } from "effect"
import * as Connectors from "./Connectors.ts"
import { WardenConfigFile } from "./WardenConfig.ts"

type Json = Record<string, any>

const without = (list: unknown, key: string): Array<string> =>
  (Array.isArray(list) ? list : []).filter((k): k is string => typeof k === "string" && k !== key)

/**
 * Builds the document from the given connectors. Struct-level rules the generator does not carry
 * (exactly one of `type`/`module`, at most one of `sqlite`/`postgres`, `action` when `mode: reject`)
 * are added by hand; `api` and `api.apiKey` are optional because `WARDEN_*` variables may supply them.
 */
export const make = (connectors: ReadonlyArray<Connector.Connector>): Json => {
  const doc = Schema.toJsonSchemaDocument(WardenConfigFile, { onExcessProperty: "error" } as never)
  const root = structuredClone(doc.schema) as Json
  const defs: Json = { ...(structuredClone(doc.definitions) as Json) }

  root.required = without(root.required, "api")
  if (root.required.length === 0) delete root.required
  const api = root.properties.api as Json
  api.required = without(api.required, "apiKey")
  if (api.required.length === 0) delete api.required
  root.properties.state.not = { required: ["sqlite", "postgres"] }

  const source = root.properties.sources.items as Json
  source.oneOf = [{ required: ["type"] }, { required: ["module"] }]
  source.properties.failureMode.if = { properties: { mode: { const: "reject" } }, required: ["mode"] }
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
  source.properties.failureMode.then = { required: ["action"] }

  const branches: Array<Json> = []
  for (const connector of connectors) {
    const { $schema: _, $defs, ...schema } = Connector.configJsonSchema(connector) as Json
    for (const [name, def] of Object.entries(($defs ?? {}) as Json)) {
      if (name in defs) throw new Error(`JSON Schema definition ${name} of connector ${connector.type} clashes`)
      defs[name] = def
    }
    const name = `connector-${connector.type}`
    defs[name] = { description: `Config of a source with type: ${connector.type}`, ...schema }
    branches.push({
      if: { properties: { type: { const: connector.type } }, required: ["type"] },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: { properties: { config: { $ref: `#/$defs/${name}` } } }
    })
  }
  if (branches.length > 0) source.allOf = branches

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

/** The JSON Schema of the config file with every installed connector's config. */
export const document: Effect.Effect<Json> = Effect.map(installedConnectors, make)
