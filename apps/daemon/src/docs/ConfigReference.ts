/**
 * Generates the key tables of docs/configuration.md from the config file's schema, as Redpanda
 * Connect and Vector generate their references: every key of each section with its type, default
 * and environment fallback comes from the schema (`ConfigJsonSchema`) and `ENV_FALLBACKS`; only the
 * "Meaning" column is written by hand, and it is kept from the current file. A key the schema gained
 * gets a row (with an empty meaning, which the drift test refuses); a key it lost loses its row.
 *
 *   node --conditions=@warden/source apps/daemon/src/docs/ConfigReference.ts   # rewrites the file
 *   pnpm --filter @warden/daemon docs:config                                    # the same
 *
 * `apps/daemon/test/docs.test.ts` fails when the file differs from what this generates.
 */
import { readFileSync, writeFileSync } from "node:fs"
import * as ConfigJsonSchema from "../config/ConfigJsonSchema.ts"
import { ENV_FALLBACKS } from "../config/EnvFallbacks.ts"

type Json = { readonly [key: string]: any }

/** The config keys a `WARDEN_*` variable fills when the file leaves them out (`EnvFallbacks`). */
export { ENV_FALLBACKS }

/** The sections of the document whose table is generated: heading name -> path in the schema. */
const SECTIONS: ReadonlyArray<{ readonly heading: string; readonly path: ReadonlyArray<string> }> = [
  { heading: "api", path: ["api"] },
  { heading: "state", path: ["state"] },
  { heading: "sources", path: ["sources", "[]"] },
  { heading: "rules", path: ["sources", "[]", "rules", "[]"] },
  { heading: "sinks", path: ["sinks", "[]"] },
  { heading: "admin", path: ["admin"] },
  { heading: "log", path: ["log"] },
  { heading: "dryRun", path: [] },
  { heading: "cluster", path: ["cluster"] },
  { heading: "moderators", path: ["moderators", "[]"] },
  { heading: "authors", path: ["authors"] }
]

/** Objects shown as one row rather than a row per key: a rate, the connector's own config. */
const ATOMIC = new Set(["api.quotas.default", "api.quotas.adaptive", "sources.[].config"])
/** Keys shown as one row for all of them. */
const COLLAPSE: ReadonlyArray<{ readonly under: string; readonly except: ReadonlySet<string>; readonly as: string }> = [
  { under: "api.quotas", except: new Set(["default", "adaptive"]), as: "quotas.<endpoint>" }
]

/** One row of a generated table. */
export interface Row {
  /** The key within its section (`retry.maxAttempts`). */
  readonly key: string
  /** For a key of one variant only (a sink type): that variant. */
  readonly variant?: string | undefined
  readonly path: string
  readonly type: string
  readonly default: string | undefined
  readonly required: boolean
}

const code = (s: string) => `\`${s}\``
const escape = (s: string) => s.replaceAll("|", "\\|")

const typeOf = (node: Json): string => {
  if (Array.isArray(node.enum)) return node.enum.map((v: unknown) => code(String(v))).join(" | ")
  if (node.const !== undefined) return code(String(node.const))
  if (Array.isArray(node.anyOf)) return [...new Set(node.anyOf.map(typeOf))].join(" or ")
  const description = typeof node.description === "string" ? node.description : ""
  switch (node.type) {
    case "string":
      if (description.startsWith("A duration")) return "duration"
      if (description === "HOST:PORT") return "HOST:PORT"
      if (node.format === "uri") return "URL"
      if (node.format === "uuid" || String(node.pattern ?? "").includes("[0-9a-fA-F]{8}")) return "UUID"
      return "string"
    case "integer":
    case "number": {
      const range =
        node.minimum !== undefined || node.maximum !== undefined
          ? ` ${node.minimum ?? ""}..${node.maximum ?? ""}`
          : node.exclusiveMinimum !== undefined
            ? ` > ${node.exclusiveMinimum}`
            : ""
      return `${node.type}${range}`
    }
    case "boolean":
      return "boolean"
    case "array":
      return node.items === undefined ? "list" : `list of ${typeOf(node.items)}`
    case "object":
      return "object"
    default:
      return "any"
  }
}

const defaultOf = (node: Json): string | undefined =>
  node.default === undefined
    ? undefined
    : code(typeof node.default === "string" ? node.default : JSON.stringify(node.default))

const resolve = (root: Json, node: Json): Json =>
  typeof node?.$ref === "string" ? root.$defs[node.$ref.replace("#/$defs/", "")] : node

const nodeAt = (root: Json, path: ReadonlyArray<string>): Json => {
  let node = root
  for (const segment of path) {
    node = resolve(root, segment === "[]" ? node.items : node.properties[segment])
  }
  return node
}

/** The rows of one section: its keys, flattened below objects, in schema order. */
export const rowsOf = (root: Json, path: ReadonlyArray<string>): Array<Row> => {
  const node = nodeAt(root, path)
  const prefix = path.join(".")
  const others = SECTIONS.map((s) => s.path.join(".")).filter((p) => p !== prefix && p.startsWith(prefix))
  const rows: Array<Row> = []
  const walk = (object: Json, keyPrefix: string, variant: string | undefined) => {
    const required = new Set<string>(object.required ?? [])
    for (const [name, raw] of Object.entries<Json>(object.properties ?? {})) {
      const child = resolve(root, raw)
      const key = `${keyPrefix}${name}`
      const full = [prefix, key].filter((s) => s !== "").join(".")
      const collapse = COLLAPSE.find(
        (c) => `${prefix}.${keyPrefix}`.replace(/\.$/, "") === c.under && !c.except.has(name)
      )
      if (collapse !== undefined) {
        if (!rows.some((r) => r.key === collapse.as)) {
          rows.push({
            key: collapse.as,
            path: `${collapse.under}.<endpoint>`,
            type: typeOf(child),
            default: defaultOf(child),
            required: false
          })
        }
        continue
      }
      const nested = child.type === "object" && child.properties !== undefined && !ATOMIC.has(full)
      const isOtherSection = others.some((o) => o === `${full}.[]` || o === full)
      if (nested && !isOtherSection) {
        walk(child, `${key}.`, variant)
        continue
      }
      if (variant !== undefined && name === "type") continue
      rows.push({
        key,
        variant,
        path: full,
        type: typeOf(child),
        default: defaultOf(child),
        required: required.has(name)
      })
    }
  }
  if (path.length === 0) {
    // the top level's own scalars (the sections have their own tables)
    for (const [name, raw] of Object.entries<Json>(root.properties)) {
      const child = resolve(root, raw)
      if (child.type !== "object" && child.type !== "array")
        rows.push({ key: name, path: name, type: typeOf(child), default: defaultOf(child), required: false })
    }
    return rows
  }
  if (Array.isArray(node.anyOf)) {
    // a list of variants told apart by `type` (the sinks): the shared keys once, then each variant's own
    // (a `module:` sink's variant has no `type`: its keys are the plugin's, not documented here)
    const variants: Array<Json> = node.anyOf
      .map((v: Json) => resolve(root, v))
      .filter((v: Json) => v.properties?.type !== undefined)
    const first: Json = variants[0] ?? { properties: {} }
    const types = variants.map((v: Json) => String(v.properties.type.enum?.[0] ?? v.properties.type.const))
    rows.push({
      key: "type",
      path: `${prefix}.type`,
      type: types.map(code).join(" | "),
      default: undefined,
      required: true
    })
    const shared = Object.keys(first.properties).filter(
      (k) => k !== "type" && variants.every((v: Json) => k in v.properties)
    )
    walk({ properties: Object.fromEntries(shared.map((k) => [k, first.properties[k]])) }, "", undefined)
    variants.forEach((v: Json, i: number) => {
      const own = Object.fromEntries(Object.entries(v.properties).filter(([k]) => !shared.includes(k)))
      walk({ properties: own, required: v.required }, "", types[i])
    })
    return rows
  }
  walk(node, "", undefined)
  return rows
}

const cells = (line: string): Array<string> =>
  line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim())

const HEADER = "| Key | Type | Default | Env | Meaning |"

/** Renders one section's table, keeping each key's meaning (and a default the schema cannot know) from `old`. */
export const renderTable = (rows: ReadonlyArray<Row>, old: ReadonlyArray<Record<string, string>>): string => {
  const lines = [HEADER, "|---|---|---|---|---|"]
  for (const row of rows) {
    const keyCell = row.variant === undefined ? code(row.key) : `${code(row.key)} (${row.variant})`
    const previous = old.find((o) => o.Key === keyCell)
    const fallbackDefault = previous?.Default !== undefined && previous.Default !== "" ? previous.Default : "—"
    const defaultCell = row.default ?? (row.required ? "required" : fallbackDefault)
    const env = ENV_FALLBACKS.get(row.path)
    lines.push(
      `| ${keyCell} | ${escape(row.type)} | ${defaultCell} | ${env === undefined ? "—" : env.split(", ").map(code).join(", ")} | ${previous?.Meaning ?? previous?.["Keys (defaults)"] ?? ""} |`
    )
  }
  return lines.join("\n")
}

/** docs/configuration.md with every section's key table generated from `schema`. */
export const render = (document: string, schema: Json): string => {
  const lines = document.split("\n")
  const out: Array<string> = []
  let section: (typeof SECTIONS)[number] | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const heading = /^#{2,3} `([^`]+)`/.exec(line)
    if (heading !== null) section = SECTIONS.find((s) => s.heading === heading[1])
    else if (/^#{2,3} /.test(line)) section = undefined
    if (section !== undefined && line.startsWith("| ") && lines[i + 1]?.startsWith("|---")) {
      const header = cells(line)
      const old: Array<Record<string, string>> = []
      let j = i + 2
      for (; j < lines.length && lines[j]!.startsWith("|"); j++) {
        const row = cells(lines[j]!)
        old.push(Object.fromEntries(header.map((h, k) => [h, row[k] ?? ""])))
      }
      out.push(renderTable(rowsOf(schema, section.path), old))
      section = undefined // one table per section
      i = j - 1
      continue
    }
    out.push(line)
  }
  return out.join("\n")
}

/** The schema the reference is generated from: the config file's, without connectors (they document their own). */
export const schema = (): Json => ConfigJsonSchema.make([]) as Json

const DOC = new URL("../../../../docs/configuration.md", import.meta.url)

/** The file as it is, and as it should be. */
export const check = (): { readonly current: string; readonly generated: string } => {
  const current = readFileSync(DOC, "utf8")
  return { current, generated: render(current, schema()) }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { current, generated } = check()
  if (generated !== current) writeFileSync(DOC, generated)
  console.log(generated === current ? "docs/configuration.md is up to date" : "docs/configuration.md regenerated")
}
