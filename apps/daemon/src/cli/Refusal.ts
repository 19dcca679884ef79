/**
 * What the commands over a config file share: the `--config` flag, and refusing with one line on
 * stderr and an exit code (2 usage, 78 invalid configuration, 1 runtime failure).
 */
import { Console, Effect, Option } from "effect"
import { Flag } from "effect/cli"
import { type ConfigError, formatLocated } from "../config/index.ts"
import { inert } from "../domain/TerminalText.ts"
import { CliFailure, EXIT_CONFIG } from "./Outcome.ts"

/**
 * Prints `lines` on stderr, one `Console.error` each, and fails with `exitCode` (reported: not printed
 * again). Each line is made inert: a refusal can quote what a feed server answered.
 */
export const printed = (lines: ReadonlyArray<string>, exitCode: number): Effect.Effect<never, CliFailure> =>
  Effect.forEach(lines, (line) => Console.error(inert(line)), { discard: true }).pipe(
    Effect.andThen(Effect.fail(new CliFailure(exitCode, lines.join("\n"))))
  )

/** Prints `warden <command>: <message>` on stderr and fails with `exitCode`. */
export const refuser =
  (command: string) =>
  (message: string, exitCode: 1 | 2 | 78): Effect.Effect<never, CliFailure> =>
    printed([`warden ${command}: ${message}`], exitCode)

/**
 * A config file refused (`config check`, `config print`, `config schema`, `run`): every problem as
 * `FILE:LINE:COL: path: message` on stderr, then the `more` lines; exit 78.
 */
export const invalidConfig = (error: ConfigError, more: ReadonlyArray<string> = []): Effect.Effect<never, CliFailure> =>
  printed([...error.problems.map((problem) => formatLocated(problem)), ...more], EXIT_CONFIG)

/** `--config FILE` (`-c`, default `warden.yaml`), described for the command. */
export const configFlag = (description: string) =>
  Flag.String("config").pipe(Flag.withAlias("c"), Flag.withDescription(description), Flag.withDefault("warden.yaml"))

/** The `--source` flag's value checked against the file's sources (`undefined`: every source); exit 2 for an unknown one. */
export const knownSource = (
  refuse: ReturnType<typeof refuser>,
  file: string,
  ids: ReadonlyArray<string>,
  flag: Option.Option<string>
): Effect.Effect<string | undefined, CliFailure> => {
  const only = Option.getOrUndefined(flag)
  return only === undefined || ids.includes(only)
    ? Effect.succeed(only)
    : refuse(`--source: no source '${only}' in ${file} (sources: ${ids.join(", ") || "(none)"})`, 2)
}
