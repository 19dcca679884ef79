/**
 * `warden reanalyse --config FILE --status unrecognised [--source ID]`: asks for the latest version of
 * every item with that status to be analysed again, e.g. after an API that answered without verdicts
 * was fixed. It writes the requests into the state store; the daemon's per-source sweep sends them
 * through the pipeline (within seconds when it runs, else at its next start), where the new version
 * gets a verdict, the rules and the sinks as any other.
 *
 * `--status unrecognised` also takes items recorded `analysed` with an empty verdict: what a daemon
 * from before the `unrecognised` outcome stored for an answer without one.
 */
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { checkConfig, formatProblem } from "../../config/index.ts"
import { REANALYSABLE } from "../../domain/ItemVersion.ts"
import { ItemStore } from "../../state/ItemStore.ts"
import { configFlag, knownSource, refuser } from "../Refusal.ts"
import * as StateFromConfig from "../StateFromConfig.ts"

const refuse = refuser("reanalyse")

/** The `reanalyse` subcommand. */
export const reanalyse = Command.make(
  "reanalyse",
  {
    config: configFlag("the daemon's warden.yaml (only its state section is used)"),
    status: Flag.Literals("status", REANALYSABLE).pipe(
      Flag.withDescription(
        "which items: unrecognised (the API answered without a verdict), unanalysed (API unreachable, failure mode allow/reject), failed (refused as bad input)"
      )
    ),
    source: Flag.String("source").pipe(Flag.withDescription("only this source (default: every source)"), Flag.optional)
  },
  ({ config: file, status, source }) =>
    Effect.gen(function* () {
      const checked = yield* checkConfig(file, { sections: ["state"] }).pipe(
        Effect.catchTag("ConfigError", (error) => refuse(error.problems.map(formatProblem).join("\n"), 78))
      )
      const only = yield* knownSource(
        refuse,
        file,
        checked.config.sources.map((s) => s.id),
        source
      )
      const queued = yield* Effect.gen(function* () {
        const store = yield* ItemStore
        return yield* store.requestReanalysis(status, only, true)
      }).pipe(Effect.provide(StateFromConfig.store(checked.config.state)))
      yield* Console.log(
        `queued ${queued} item${queued === 1 ? "" : "s"} with status ${status}${only === undefined ? "" : ` of source ${only}`} for analysis; the daemon sends them within seconds when it runs, else at its next start`
      )
    })
).pipe(
  Command.withDescription(
    "Analyse again the items of a status (e.g. answers without a verdict, once the API is fixed)"
  ),
  Command.withExamples([
    {
      command: "warden reanalyse --config warden.yaml --status unrecognised",
      description: "answers without a verdict, once the API is fixed"
    },
    { command: "warden reanalyse -c warden.yaml --status unanalysed --source news", description: "one source only" }
  ])
)
