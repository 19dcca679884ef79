/**
 * `warden state stats --config FILE`: rows and bytes per state table, the database's size and free
 * pages, bytes per item stored, and the age of the oldest batch message not processed yet. Reads the
 * state database named by the config's `state` section; safe while the daemon runs (read only).
 */
import { Console, Effect, Runtime, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import { checkConfig, formatProblem } from "../../config/index.ts"
import { sqlLayer } from "../../Daemon.ts"
import * as StateStats from "../../state/StateStats.ts"

/** Refused (printed already): 78 for an invalid config. */
class StateRefused extends Schema.TaggedError<StateRefused>()("StateRefused", { exitCode: Schema.Int }) {
  override get [Runtime.errorExitCode]() {
    return this.exitCode
  }
  override readonly [Runtime.errorReported] = false
}

const stats = Command.make(
  "stats",
  {
    config: Flag.String("config").pipe(
      Flag.withAlias("c"),
      Flag.withDescription("the daemon's warden.yaml (only its state section is used)"),
      Flag.withDefault("warden.yaml")
    ),
    json: Flag.Boolean("json").pipe(Flag.withDescription("print JSON instead of a table"))
  },
  ({ config: file, json }) =>
    Effect.gen(function* () {
      const checked = yield* checkConfig(file, { sections: ["state"] }).pipe(
        Effect.catchTag("ConfigError", (error) =>
          Console.error(`warden state stats: ${error.problems.map(formatProblem).join("\n")}`).pipe(
            Effect.andThen(Effect.fail(new StateRefused({ exitCode: 78 })))
          )
        )
      )
      const state = checked.config.state
      const result = yield* StateStats.read().pipe(
        Effect.provide(
          sqlLayer(
            state._tag === "Sqlite"
              ? { _tag: "sqlite", filename: state.filename }
              : { _tag: "postgres", url: state.url }
          )
        )
      )
      yield* Console.log(json ? JSON.stringify(result, null, 2) : StateStats.format(result, Date.now()))
    })
).pipe(
  Command.withDescription("Rows and bytes per state table, bytes per item, the oldest unprocessed batch message"),
  Command.withExamples([
    { command: "warden state stats --config warden.yaml", description: "a table for a person" },
    { command: "warden state stats --config warden.yaml --json", description: "the same as JSON, for a script" }
  ])
)

/** The `state` subcommand. */
export const state = Command.make("state").pipe(
  Command.withDescription("Inspect the daemon's state database"),
  Command.withSubcommands([stats])
)
