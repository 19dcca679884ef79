/**
 * The `sinks` section, entry by entry: each sink found (built in, package or module) and its own keys
 * decoded by its schema, as a source's connector is: problems name `sinks.N.<key>`, its secrets are
 * warned about when inline and never shown in a problem, its file paths are relative to the config
 * file's directory. Sink names are unique.
 */
import { ConfigField, type Sink as SinkPlugin } from "@warden/sink"
import { Effect } from "effect"
import * as InlineSecrets from "./InlineSecrets.ts"
import type { CheckContext } from "./internal/CheckContext.ts"
import { decode, isRecord } from "./internal/Decode.ts"
import * as Sinks from "./Sinks.ts"
import { SINK_KEYS, SinkEntry } from "./SinkSection.ts"

/** The sinks found: each entry's sink and decoded config (by index), and each entry's name. */
export interface Found {
  readonly plugins: ReadonlyMap<number, SinkPlugin.Sink>
  readonly configs: ReadonlyMap<number, unknown>
  /** By index; `undefined` for an entry that did not decode. */
  readonly names: ReadonlyArray<string | undefined>
}

/** The keys of a sink entry that are the sink's own (not `type`, `name`, `retry`, ...). */
const own = (value: unknown) =>
  isRecord(value) ? Object.fromEntries(Object.entries(value).filter(([k]) => !SINK_KEYS.includes(k))) : {}

/** Checks the sink entries (`[{ type: stdout }]` when the file has none), into `context`'s problems and warnings. */
export const check = (context: CheckContext): Effect.Effect<Found> =>
  Effect.gen(function* () {
    const { document, raw, problems, warnings, baseDirectory } = context
    const whole = context.resolved.whole
    const rawSinks = Array.isArray(document.sinks)
      ? document.sinks
      : document.sinks === undefined
        ? [{ type: "stdout" }]
        : []
    const plugins = new Map<number, SinkPlugin.Sink>()
    const configs = new Map<number, unknown>()
    const names: Array<string | undefined> = []
    for (let i = 0; i < rawSinks.length; i++) {
      const at = `sinks.${i}`
      const d = decode(SinkEntry, rawSinks[i], ["sinks", i], "error", whole)
      if (!d.ok) {
        names.push(undefined)
        continue
      }
      const entry = d.value
      const ref = entry.type !== undefined ? { type: entry.type } : { module: entry.module! }
      const plugin = yield* Sinks.resolve(baseDirectory, ref).pipe(
        Effect.catch((error) =>
          Effect.sync(
            () => void problems.push({ path: `${at}.${"type" in ref ? "type" : "module"}`, message: error.message })
          )
        )
      )
      names.push(entry.name ?? plugin?.type ?? entry.type)
      if (plugin === undefined) continue
      plugins.set(i, plugin)
      const written = own(Array.isArray(raw.sinks) ? raw.sinks[i] : undefined)
      warnings.push(...InlineSecrets.warnings(plugin.configSchema, written, ["sinks", i], context.resolved.referenced))
      const secrets = InlineSecrets.values(plugin.configSchema, written, own(rawSinks[i]))
      // Its file paths (fields marked `ConfigField.path`), relative to the config file's directory.
      const resolved = ConfigField.resolvePaths(plugin.configSchema, own(rawSinks[i]), baseDirectory)
      const config = decode(plugin.configSchema, resolved, ["sinks", i], "error", whole)
      if (config.ok) configs.set(i, config.value)
      else problems.push(...InlineSecrets.redact(config.problems, secrets))
    }
    names.forEach((name, i) => {
      if (name !== undefined && names.indexOf(name) !== i) {
        problems.push({
          path: `sinks.${i}.name`,
          message: `duplicate sink name '${name}' (also sinks.${names.indexOf(name)}); give each sink a unique name`
        })
      }
    })
    return { plugins, configs, names }
  })
