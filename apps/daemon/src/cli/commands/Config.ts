/**
 * `warden config check FILE`: reads and checks a config file without starting anything (no sockets,
 * no database): prints every problem as `path: message` on stderr and exits 78, or a short summary
 * and exits 0. `warden config schema`: prints the JSON Schema of the file.
 */
import { Console, Effect, Redacted, Runtime, Schema } from "effect"
import { Argument, Command } from "effect/cli"
import { checkConfig, formatProblem } from "../../config/index.ts"
import * as ConfigJsonSchema from "../../config/ConfigJsonSchema.ts"

/** The problems were printed already: exit 78 without a second report. */
class InvalidConfig extends Schema.TaggedError<InvalidConfig>()("InvalidConfig", { file: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 78
  override readonly [Runtime.errorReported] = false
}

const check = Command.make("check", { file: Argument.String("file") }, ({ file }) =>
  Effect.gen(function* () {
    const checked = yield* checkConfig(file).pipe(
      Effect.catchTag("ConfigError", (error) =>
        Effect.gen(function* () {
          for (const problem of error.problems) yield* Console.error(formatProblem(problem))
          // Warnings beside the errors: every finding at once, not revealed one round of fixes later.
          const warnings = error.warnings ?? []
          for (const warning of warnings) yield* Console.error(`warning: ${formatProblem(warning)}`)
          yield* Console.error(
            `${file}: ${error.problems.length} problem${error.problems.length === 1 ? "" : "s"}${warnings.length === 0 ? "" : `, ${warnings.length} warning${warnings.length === 1 ? "" : "s"}`}`
          )
          return yield* new InvalidConfig({ file })
        })
      )
    )
    for (const warning of checked.warnings) yield* Console.error(`warning: ${formatProblem(warning)}`)
    const { config } = checked
    const state =
      config.state._tag === "Sqlite" ? `sqlite ${config.state.filename}` : `postgres ${redactUrl(config.state.url)}`
    const sources = config.sources.map((s) => `${s.id} (${s.type ?? s.module})`)
    yield* Console.log(`${file}: OK`)
    yield* Console.log(`  sources: ${config.sources.length}${sources.length > 0 ? `: ${sources.join(", ")}` : ""}`)
    yield* Console.log(
      `  sinks: ${config.sinks.length}${config.sinks.length > 0 ? `: ${config.sinks.map((s) => (s.name === s.type ? s.name : `${s.name} (${s.type})`)).join(", ")}` : ""}`
    )
    yield* Console.log(`  state: ${state}`)
  })
).pipe(
  Command.withDescription("Check a config file: print every problem (exit 78) or a summary (exit 0); starts nothing")
)

/** A Postgres URL without its credentials. */
const redactUrl = (url: Redacted.Redacted<string>): string => {
  try {
    const u = new URL(Redacted.value(url))
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return "(url)"
  }
}

const schema = Command.make("schema", {}, () =>
  Effect.flatMap(ConfigJsonSchema.document, (doc) => Console.log(JSON.stringify(doc, null, 2)))
).pipe(
  Command.withDescription("Print the JSON Schema (draft 2020-12) of the config file, installed connectors included")
)

/** The `config` subcommand: `check FILE` and `schema`. */
export const config = Command.make("config").pipe(
  Command.withDescription("The daemon's configuration file"),
  Command.withSubcommands([check, schema])
)
