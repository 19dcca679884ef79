/** The `warden` program, loaded by `bin.ts` once the heap budget is in place. */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Exit, Runtime } from "effect"
import { run } from "./cli/Main.ts"
import * as Outcome from "./cli/Outcome.ts"
import * as Presenter from "./cli/Presenter.ts"
import * as Logging from "./Logging.ts"

/**
 * SIGINT/SIGTERM interrupt the program; a clean drain after a signal is a normal stop, so it exits 0
 * (the default would be 130). Other failures exit with `Outcome.exitCodeOf`: 2 usage, 78 invalid
 * configuration, 1 otherwise.
 */
const teardown: Runtime.Teardown = (exit, onExit) => {
  if (Exit.isFailure(exit)) {
    if (Cause.hasInterruptsOnly(exit.cause)) return onExit(0)
    return onExit(Outcome.exitCodeOf(exit.cause))
  }
  return Runtime.defaultTeardown(exit, onExit)
}

run.pipe(
  Effect.provide(Presenter.layer),
  // Every command logs in the format and level the environment chooses (WARDEN_LOG_FORMAT,
  // WARDEN_LOG_LEVEL); `run` refines it with the file, `--log-level` wins over both.
  Effect.provide(Logging.layerFromEnv),
  // Whatever a command did not print itself is printed here as one line on stderr, never as a trace.
  Effect.tapCause(Outcome.reportUnreported),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain({ teardown, disableErrorReporting: true })
)
