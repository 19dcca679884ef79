/**
 * `warden config check FILE`: reads and checks a config file without starting anything (no sockets,
 * no database): prints every problem as `path: message` on stderr and exits 78, or a short summary
 * and exits 0. With `--connect` it then tries what `warden run` needs (`Connect`): each failure one
 * line naming the setting, exit 78 when the file is at fault, 1 when the machine or a service is. `warden config schema [--config F]`: prints the JSON Schema of the file, with
 * the config of the plugins F names.
 */
import { ConfigDuration, ConfigField } from "@warden/connector"
import { Config, Console, Duration, Effect, Option, Redacted } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { stringify } from "yaml"
import { checkConfig, formatLocated } from "../../config/index.ts"
import * as ConfigJsonSchema from "../../config/ConfigJsonSchema.ts"
import * as Connect from "../Connect.ts"
import { looksLikeUrl, shownUrl } from "../ShownUrl.ts"
import { invalidConfig, printed } from "../Refusal.ts"
import { inert } from "../../domain/TerminalText.ts"

const connectFlag = Flag.Boolean("connect").pipe(
  Flag.withDescription(
    "Also try what `run` needs: files writable, admin port free, database reachable, API key accepted (no content is analysed)"
  ),
  Flag.withDefault(false)
)

/** The file argument: `FILE`, else the file `WARDEN_CONFIG` names (as `warden run` reads it). */
const fileArgument = Argument.String("file").pipe(
  Argument.withDescription("the config file (default: $WARDEN_CONFIG)"),
  Argument.withFallbackConfig(Config.String("WARDEN_CONFIG"))
)

const check = Command.make("check", { file: fileArgument, connect: connectFlag }, ({ file, connect }) =>
  Effect.gen(function* () {
    const checked = yield* checkConfig(file).pipe(
      Effect.catchTag("ConfigError", (error) => {
        // Warnings beside the errors: every finding at once, not revealed one round of fixes later.
        const warnings = error.warnings ?? []
        return invalidConfig(error, [
          ...warnings.map((warning) => formatLocated(warning, "warning")),
          `${file}: ${error.problems.length} problem${error.problems.length === 1 ? "" : "s"}${warnings.length === 0 ? "" : `, ${warnings.length} warning${warnings.length === 1 ? "" : "s"}`}`
        ])
      })
    )
    for (const warning of checked.warnings) yield* Console.error(formatLocated(warning, "warning"))
    const { config } = checked
    const state =
      config.state._tag === "Sqlite"
        ? `sqlite ${config.state.filename}`
        : `postgres ${shownUrl(Redacted.value(config.state.url))}`
    const sources = config.sources.map((s) => `${s.id} (${s.type ?? s.module})`)
    yield* Console.log(`${file}: OK`)
    yield* Console.log(`  sources: ${config.sources.length}${sources.length > 0 ? `: ${sources.join(", ")}` : ""}`)
    yield* Console.log(
      `  sinks: ${config.sinks.length}${config.sinks.length > 0 ? `: ${config.sinks.map((s) => (s.name === s.type ? s.name : `${s.name} (${s.type})`)).join(", ")}` : ""}`
    )
    yield* Console.log(`  state: ${state}`)
    if (!connect) return
    const probes = yield* Connect.probes(config)
    for (const probe of probes) {
      if (probe.problem === undefined) yield* Console.log(`  connect: ${probe.setting}: ${probe.what}: ok`)
      // A probe's problem can quote what the remote server answered.
      else yield* Console.error(inert(probe.problem))
    }
    const failures = probes.filter((p) => p.problem !== undefined)
    if (failures.length > 0) {
      // Exit 78 when the file is at fault, else 1.
      return yield* printed(
        [`${file}: ${failures.length} of ${probes.length} connection check${probes.length === 1 ? "" : "s"} failed`],
        failures.some((p) => p.exitCode === 78) ? 78 : 1
      )
    }
  })
).pipe(
  Command.withDescription("Check a config file: print every problem (exit 78) or a summary (exit 0); starts nothing"),
  Command.withExamples([
    { command: "warden config check warden.yaml", description: "every problem as FILE:LINE:COL: path: message" },
    {
      command: "warden config check --connect warden.yaml",
      description: "also try the key, the database, the files and the port"
    }
  ])
)

/**
 * The effective config as plain data for `config print`: defaults filled, secrets `<redacted>`,
 * durations in the short form, addresses as `HOST:PORT`, paths absolute, URLs without what can carry a
 * secret (userinfo, query values, and a webhook's path: `ShownUrl`).
 */
export const printable = (value: unknown): unknown => {
  if (Redacted.isRedacted(value)) return "<redacted>"
  if (typeof value === "string" && looksLikeUrl(value)) return shownUrl(value)
  if (Duration.isDuration(value)) return ConfigDuration.format(value)
  if (Array.isArray(value)) return value.map((v) => printable(v))
  if (typeof value === "object" && value !== null) {
    const o = value as Record<string, unknown>
    if (Object.keys(o).length === 2 && typeof o.host === "string" && typeof o.port === "number")
      return o.host.includes(":") ? `[${o.host}]:${o.port}` : `${o.host}:${o.port}`
    // A webhook's path is where Slack, Discord and Teams put the token: hidden too (`ShownUrl`'s `hidePath`).
    const webhookUrl = o.type === "webhook" && typeof o.url === "string" ? o.url : undefined
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(o)) {
      if (v === undefined) continue
      out[k] = k === "url" && webhookUrl !== undefined ? shownUrl(webhookUrl, { hidePath: true }) : printable(v)
    }
    return out
  }
  return value
}

/** A shallow-per-level copy of plain objects and arrays (Redacted values and durations kept as they are). */
const structuredCloneSafe = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(structuredCloneSafe)
    : typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, structuredCloneSafe(v)]))
      : value

/** Replaces the string at `path` of a copied config with `<redacted>`. */
const redactAt = (value: unknown, path: ReadonlyArray<string | number>): void => {
  let node = value
  for (const key of path.slice(0, -1))
    node = typeof node === "object" && node !== null ? Reflect.get(node, key) : undefined
  const last = path.at(-1)
  if (last !== undefined && typeof node === "object" && node !== null) Reflect.set(node, last, "<redacted>")
}

const print = Command.make("print", { file: fileArgument }, ({ file }) =>
  Effect.gen(function* () {
    const checked = yield* checkConfig(file).pipe(Effect.catchTag("ConfigError", (error) => invalidConfig(error)))
    const { path, dataDir, state, api, sinks, ...rest } = checked.config
    // In the file's own shape: `state.dir` and `sqlite` or `postgres`, not the decoded union; a sink's
    // own keys beside `type` and `name`, with the fields its schema marks secret redacted.
    const view = {
      api,
      state: state._tag === "Sqlite" ? { dir: dataDir, sqlite: state.filename } : { dir: dataDir, postgres: state.url },
      ...rest,
      sinks: sinks.map((sink) => {
        const plugin = checked.sinks.get(sink.name)
        const own = structuredCloneSafe(sink.config)
        if (plugin !== undefined) for (const at of ConfigField.secretValues(plugin.configSchema, own)) redactAt(own, at)
        return {
          type: sink.type,
          ...(sink.module === undefined ? {} : { module: sink.module }),
          name: sink.name,
          content: sink.content,
          retry: sink.retry,
          ...(typeof own === "object" && own !== null ? own : {})
        }
      })
    }
    yield* Console.log(`# effective configuration of ${path}: defaults filled, secrets redacted`)
    yield* Console.log(stringify(printable(view), { lineWidth: 0 }).trimEnd())
  })
).pipe(
  Command.withDescription(
    "Print the effective config: the file with every default filled, secrets redacted (exit 78 when invalid)"
  ),
  Command.withExamples([
    { command: "warden config print warden.yaml", description: "what `warden run` would run with" },
    {
      command: "WARDEN_STATE_DIR=/var/lib/warden warden config print warden.yaml",
      description: "with the environment's values"
    }
  ])
)

const schemaConfigFlag = Flag.String("config").pipe(
  Flag.withAlias("c"),
  Flag.withDescription(
    "Also include the config of each `module:` plugin (and other `type:` package) this file's sources name"
  ),
  Flag.optional
)

const schema = Command.make("schema", { config: schemaConfigFlag }, ({ config }) =>
  Effect.gen(function* () {
    const doc = yield* Option.match(config, {
      onNone: () => ConfigJsonSchema.document,
      onSome: (file) =>
        ConfigJsonSchema.documentFor(file).pipe(Effect.catchTag("ConfigError", (error) => invalidConfig(error)))
    })
    yield* Console.log(JSON.stringify(doc, null, 2))
  })
).pipe(
  Command.withDescription(
    "Print the JSON Schema (draft 2020-12) of the config file, installed connectors included (with --config, the file's plugins too)"
  ),
  Command.withExamples([
    {
      command: "warden config schema > warden.schema.json",
      description: "for an editor: # yaml-language-server: $schema=warden.schema.json"
    },
    {
      command: "warden config schema --config warden.yaml > warden.schema.json",
      description: "with the config (descriptions, secret fields) of the `module:` plugins warden.yaml loads"
    }
  ])
)

/** The `config` subcommand: `check FILE`, `print FILE` and `schema`. */
export const config = Command.make("config").pipe(
  Command.withDescription("The daemon's configuration file"),
  Command.withSubcommands([check, print, schema])
)
