/**
 * `warden state stats --config FILE`: rows and bytes per state table, the database's size and free
 * pages, bytes per item stored, and the age of the oldest batch message not processed yet. Reads the
 * state database named by the config's `state` section; safe while the daemon runs (read only).
 */
import { Clock, Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { checkConfig, formatProblem } from "../../config/index.ts"
import * as StateStats from "../../state/StateStats.ts"
import { configFlag, refuser } from "../Refusal.ts"
import * as StateFromConfig from "../StateFromConfig.ts"

const refuse = refuser("state stats")

const stats = Command.make(
  "stats",
  {
    config: configFlag("the daemon's warden.yaml (only its state section is used)"),
    json: Flag.Boolean("json").pipe(Flag.withDescription("print JSON instead of a table"), Flag.withDefault(false))
  },
  ({ config: file, json }) =>
    Effect.gen(function* () {
      const checked = yield* checkConfig(file, { sections: ["state"] }).pipe(
        Effect.catchTag("ConfigError", (error) => refuse(error.problems.map(formatProblem).join("\n"), 78))
      )
      const result = yield* StateStats.read().pipe(Effect.provide(StateFromConfig.sql(checked.config.state)))
      yield* Console.log(
        json ? JSON.stringify(result, null, 2) : StateStats.format(result, yield* Clock.currentTimeMillis)
      )
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
