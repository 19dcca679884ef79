/**
 * The `warden` command: every subcommand is its own module under `cli/commands/`, registered here.
 * Exit codes (DESIGN.md): 0 ok, 1 runtime failure, 2 usage error, 78 invalid configuration.
 */
import { Command } from "effect/cli"
import { analyze } from "./commands/Analyze.ts"
import { feedback } from "./commands/Feedback.ts"
import { legacy } from "./commands/Legacy.ts"
import { config } from "./commands/Config.ts"
import { demo } from "./commands/Demo.ts"
import { erase } from "./commands/Erase.ts"
import { moderator } from "./commands/Moderator.ts"
import { policy } from "./commands/Policy.ts"
import { reanalyse } from "./commands/Reanalyse.ts"
import { run as runCommand } from "./commands/Run.ts"
import { source } from "./commands/Source.ts"
import { sandbox } from "./commands/Sandbox.ts"
import { state } from "./commands/State.ts"
import { version } from "../Version.ts"

/** Every subcommand of `warden`. Add a command: a module under `cli/commands/`, one line here. */
const subcommands = [
  sandbox,
  analyze,
  feedback,
  legacy,
  config,
  demo,
  runCommand,
  source,
  reanalyse,
  state,
  policy,
  erase,
  moderator
] as const

/** The root `warden` command. */
export const warden = Command.make("warden").pipe(
  Command.withDescription("Warden: ingest, analyse and moderate content with the Content Analysis and Feedback API"),
  Command.withSubcommands(subcommands)
)

/** Runs the CLI on `process.argv`. */
export const run = Command.run(warden, { version })
