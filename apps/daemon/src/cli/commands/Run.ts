/**
 * `warden run --config FILE`: the long-running ingestion service. The file is checked first (the same
 * problems `warden config check` prints, exit 78); then the daemon runs until SIGINT/SIGTERM, which
 * stop taking events, hand back in-flight work and exit 0.
 */
import { Cause, Console, Effect, Redacted, Runtime, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import { AdminServer } from "../../admin/AdminServer.ts"
import { checkConfig, formatLocated } from "../../config/index.ts"
import * as Daemon from "../../Daemon.ts"
import * as FromConfig from "../../FromConfig.ts"
import * as Logging from "../../Logging.ts"
import * as StartupFailure from "../../StartupFailure.ts"

/** The configuration was refused (problems printed already): exit 78. */
class InvalidConfig extends Schema.TaggedError<InvalidConfig>()("InvalidConfig", { file: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 78
  override readonly [Runtime.errorReported] = false
}

/** The daemon could not start (or stopped on a fatal error), logged already: exit 1 or 78. */
class Fatal extends Schema.TaggedError<Fatal>()("Fatal", { message: Schema.String, exitCode: Schema.Int }) {
  override get [Runtime.errorExitCode]() {
    return this.exitCode
  }
  override readonly [Runtime.errorReported] = false
}

/** One log line, in the configured format, naming the setting at fault; then the exit. */
const fatal = (failure: StartupFailure.StartupFailure) =>
  Effect.logFatal(failure.message).pipe(
    failure.setting === undefined ? (e) => e : Effect.annotateLogs({ setting: failure.setting }),
    Effect.andThen(Effect.fail(new Fatal({ message: failure.message, exitCode: failure.exitCode })))
  )

/** The `run` subcommand. */
export const run = Command.make(
  "run",
  {
    config: Flag.String("config").pipe(
      Flag.withAlias("c"),
      Flag.withDescription("the warden.yaml to run"),
      Flag.withDefault("warden.yaml")
    )
  },
  ({ config: file }) =>
    Effect.gen(function* () {
      const checked = yield* checkConfig(file).pipe(
        Effect.catchTag("ConfigError", (error) =>
          Effect.gen(function* () {
            for (const problem of error.problems) yield* Console.error(formatLocated(problem))
            return yield* new InvalidConfig({ file })
          })
        )
      )
      for (const warning of checked.warnings) yield* Console.error(formatLocated(warning, "warning"))
      if (checked.config.sources.length === 0) {
        yield* Console.error("sources: nothing to run; add at least one source")
        return yield* new InvalidConfig({ file })
      }
      const { spec, generatedToken } = FromConfig.specOf(checked)
      const log = checked.config.log
      yield* Effect.gen(function* () {
        const admin = yield* AdminServer
        yield* Effect.logInfo(
          `warden running: ${spec.sources.length} source(s), ${spec.sinkNames.length} sink(s); admin API ${admin.url}`
        )
        // The review console's sign-in link, on stderr only (it holds the token; the log never does).
        yield* Console.error(`console  ${Redacted.value(admin.consoleUrl)}`)
        if (generatedToken && spec.admin !== undefined) {
          // Shown once, on stderr: the file sets no admin token, so this run made one.
          yield* Console.error(
            `admin token (generated for this run; set admin.token to keep one): ${Redacted.value(spec.admin.token)}`
          )
        }
        return yield* Effect.never
      }).pipe(
        Effect.provide(Daemon.layer(spec)),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : fatal(StartupFailure.describe(cause, checked.config))
        ),
        Effect.provide(Logging.layer(log.format, log.level))
      )
    })
).pipe(Command.withDescription("Run the ingestion service described by a config file until SIGINT/SIGTERM"))
