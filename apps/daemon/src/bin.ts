#!/usr/bin/env node
/** The `warden` executable. */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Effect, Exit, Runtime } from "effect"
import { CliError } from "effect/cli"
import { run } from "./cli/Main.ts"

/** Exit code of a usage error (DESIGN.md): an unknown command or flag, a missing or invalid argument. */
const EXIT_USAGE = 2

const isUsageError = (error: unknown): boolean =>
  CliError.isCliError(error) && (error._tag !== "ShowHelp" || (error as CliError.ShowHelp).errors.length > 0)

/**
 * SIGINT/SIGTERM interrupt the program; a clean drain after a signal is a normal stop, so it exits 0
 * (the default would be 130). A usage error exits 2; other failures keep their codes (78 invalid
 * configuration, 1 otherwise).
 */
const teardown: Runtime.Teardown = (exit, onExit) => {
  if (Exit.isFailure(exit)) {
    if (Cause.hasInterruptsOnly(exit.cause)) return onExit(0)
    if (isUsageError(Cause.squash(exit.cause))) return onExit(EXIT_USAGE)
  }
  return Runtime.defaultTeardown(exit, onExit)
}

run.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain({ teardown }))
