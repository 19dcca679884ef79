/**
 * How `warden` shows what the command-line parser found: `--help` prints the help on stdout; a usage
 * error (an unknown command or flag, a missing or invalid argument) prints one line per problem and a
 * `--help` hint on stderr, never the whole help, so a script's stdout stays clean and the error is
 * the first thing a person reads.
 */
import { Console } from "effect"
import { type CliError, CliOutput } from "effect/cli"

/** One parse error as one line: the parser's multi-line "Did you mean" blocks folded in. */
export const errorLine = (error: CliError.NonShowHelpErrors): string =>
  error.message
    // the command path is already at the start of the line
    .replace(/ in command [^\n]*/, "")
    .replace(/\s*\n\s*Did you mean this\?\s*\n\s*/g, " (did you mean ")
    .replace(/\s*\n\s*/g, ", ")
    .replace(/ \(did you mean (.*)$/, " (did you mean $1?)")

/** The usage-error lines for a command path: every problem, then where to read the usage. */
export const usageLines = (
  commandPath: ReadonlyArray<string>,
  errors: ReadonlyArray<CliError.NonShowHelpErrors>,
  subcommands: ReadonlyArray<string> = []
): ReadonlyArray<string> => {
  const command = commandPath.join(" ")
  const problems =
    errors.length === 0
      ? [`${command}: a subcommand is required${subcommands.length > 0 ? ` (${subcommands.join(", ")})` : ""}`]
      : errors.map((e) => `${command}: ${errorLine(e)}`)
  return [...problems, `Run '${command} --help' for usage.`]
}

/** The presenter of the `warden` command line. */
export const presenter: CliOutput.Presenter = {
  present: (event) => {
    switch (event._tag) {
      case "InvalidInvocation":
        return Console.error(usageLines(event.commandPath, event.errors).join("\n"))
      case "Help":
        // "Implicit": a command that needs a subcommand was given none; that is a usage error too.
        return event.reason === "Implicit"
          ? Console.error(
              usageLines(
                event.commandPath,
                [],
                (event.helpDoc.subcommands ?? []).flatMap((g) => g.commands.map((c) => c.name))
              ).join("\n")
            )
          : CliOutput.defaultPresenter.present(event)
      default:
        return CliOutput.defaultPresenter.present(event)
    }
  }
}

/** The layer installing {@link presenter}. */
export const layer = CliOutput.layerPresenter(presenter)
