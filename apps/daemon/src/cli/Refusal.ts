/**
 * What the commands over a config file share: the `--config` flag, and refusing with one line on
 * stderr and an exit code (2 usage, 78 invalid configuration, 1 runtime failure).
 */
import { Console, Effect, Option } from "effect"
import { Flag } from "effect/cli"
import { CliFailure } from "./commands/Analyze.ts"

/** Prints `warden <command>: <message>` on stderr and fails with `exitCode`. */
export const refuser =
  (command: string) =>
  (message: string, exitCode: 1 | 2 | 78): Effect.Effect<never, CliFailure> => {
    const line = `warden ${command}: ${message}`
    return Console.error(line).pipe(Effect.andThen(Effect.fail(new CliFailure(exitCode, line))))
  }

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
