/**
 * `warden run --config FILE`: the long-running ingestion service. The file is checked first (the same
 * problems `warden config check` prints, exit 78); then the daemon runs until SIGINT/SIGTERM, which
 * stop taking events, hand back in-flight work and exit 0 (1 when the stop could not finish within
 * StopDeadline.MILLIS).
 */
import { resolve as resolvePath } from "node:path"
import { Cause, Config, Console, Effect, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { checkConfig, formatLocated } from "../../config/index.ts"
import * as Logging from "../../Logging.ts"
import * as StartupFailure from "../../StartupFailure.ts"
import * as AdminToken from "../AdminToken.ts"
import { CliFailure } from "../Outcome.ts"
import { invalidConfig, printed } from "../Refusal.ts"

/**
 * The daemon could not start (or stopped on a fatal error): one log line, in the configured format,
 * naming the setting at fault; then the exit (1 or 78) without a second report.
 */
const fatal = (failure: StartupFailure.StartupFailure) =>
  Effect.logFatal(failure.message).pipe(
    failure.setting === undefined ? (e) => e : Effect.annotateLogs({ setting: failure.setting }),
    Effect.andThen(Effect.fail(new CliFailure(failure.exitCode, failure.message)))
  )

/** The `run` subcommand. */
export const run = Command.make(
  "run",
  {
    config: Flag.String("config").pipe(
      Flag.withAlias("c"),
      Flag.withDescription(
        `the config file to run (default: $WARDEN_CONFIG, else ./warden.yaml; here: ${resolvePath(process.env.WARDEN_CONFIG || "warden.yaml")})`
      ),
      Flag.withFallbackConfig(Config.String("WARDEN_CONFIG")),
      Flag.withDefault("warden.yaml")
    )
  },
  ({ config: file }) =>
    Effect.gen(function* () {
      const checked = yield* checkConfig(file).pipe(Effect.catchTag("ConfigError", (error) => invalidConfig(error)))
      for (const warning of checked.warnings) yield* Console.error(formatLocated(warning, "warning"))
      if (checked.config.sources.length === 0) {
        return yield* printed(["sources: nothing to run; add at least one source"], 78)
      }
      // Loaded on use: the daemon (pipeline, sinks, admin server, cluster runner, OTLP exporter) is
      // what `run` alone needs, and every other command would pay for it at start.
      const [FromConfig, Daemon, { AdminServer }, Telemetry, { StateOwner }, StopDeadline] = yield* Effect.promise(() =>
        Promise.all([
          import("../../FromConfig.ts"),
          import("../../Daemon.ts"),
          import("../../admin/AdminServer.ts"),
          import("../../Telemetry.ts"),
          import("../../state/StateOwner.ts"),
          import("../../StopDeadline.ts")
        ])
      )
      const { spec, generatedToken } = FromConfig.specOf(checked)
      const log = checked.config.log
      // A terminal is a person watching; anything else on stderr is the log stream, shipped and kept.
      const terminal = process.stderr.isTTY === true
      // The generated token goes to a 0600 file before anything listens: never into the log stream.
      const tokenFile =
        generatedToken && spec.admin !== undefined && !terminal
          ? yield* AdminToken.writeTokenFile(checked.config.dataDir, spec.admin.token).pipe(
              Effect.catch((failure) =>
                fatal({
                  setting: "state.dir",
                  message: `state.dir: cannot write the generated admin token to ${failure.path}: ${failure.reason} (set state.dir to a writable directory, or admin.token)`,
                  exitCode: 78
                })
              ),
              Effect.provide(Logging.layerFor(log))
            )
          : undefined
      yield* Effect.gen(function* () {
        const admin = yield* AdminServer
        yield* Effect.logInfo(
          `warden running: ${spec.sources.length} source(s), ${spec.sinkNames.length} sink(s); admin API ${admin.url}`
        )
        if (terminal) {
          // The review console's sign-in link holds the token: shown on a terminal only.
          yield* Console.error(`console  ${Redacted.value(admin.consoleUrl)}`)
          if (generatedToken && spec.admin !== undefined) {
            // Shown once: the file sets no admin token, so this run made one.
            yield* Console.error(
              `admin token (generated for this run; set admin.token to keep one): ${Redacted.value(spec.admin.token)}`
            )
          }
        } else if (tokenFile !== undefined) {
          yield* Effect.logInfo(
            `admin token generated for this run, written to ${tokenFile} (mode 0600); set admin.token to keep one`
          ).pipe(Effect.annotateLogs({ tokenFile }))
        }
        // Runs until a signal, or until another daemon has taken the SQLite state file over.
        return yield* (yield* StateOwner).lost
      }).pipe(
        // From the signal on, the stop (the layers' release, below) has StopDeadline.MILLIS to finish.
        StopDeadline.guard,
        Effect.provide(Daemon.layer({ ...spec, traceApiCalls: Telemetry.tracesEnabled() })),
        // OTLP traces and metrics when the OTEL_* variables ask for them (outside, so the daemon's
        // layers are traced as they start).
        Effect.provide(Telemetry.layer()),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : fatal(StartupFailure.describe(cause, checked.config))
        ),
        Effect.provide(Logging.layerFor(log))
      )
    })
).pipe(
  Command.withDescription("Run the ingestion service described by a config file until SIGINT/SIGTERM"),
  Command.withExamples([
    { command: "warden run", description: "run ./warden.yaml (or the file $WARDEN_CONFIG names)" },
    {
      command: "warden run --config /etc/warden/warden.yaml",
      description: "a config on a read-only mount (set state.dir)"
    },
    { command: "WARDEN_LOG_LEVEL=debug warden run -c warden.yaml", description: "more logs than the file asks for" },
    { command: "warden --log-level warn run", description: "--log-level wins over the environment and the file" }
  ])
)
