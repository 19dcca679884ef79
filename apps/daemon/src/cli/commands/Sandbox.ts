/**
 * `warden sandbox`: serves the whole Content Analysis and Feedback API (v1 and legacy paths) from
 * `@warden/sandbox` on 127.0.0.1, prints `listening on http://127.0.0.1:N` once ready, and runs until
 * interrupted. Faults and quotas come from flags, from `--config FILE`, or later from the control API.
 */
import { PATHS } from "@warden/core"
import type { Faults, Quotas, SandboxConfig } from "@warden/sandbox"
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { EXIT_CONFIG, EXIT_USAGE } from "../Outcome.ts"
import { refuser } from "../Refusal.ts"

const probability = (name: string, what: string) =>
  Flag.Finite(name).pipe(Flag.withDescription(`probability (0..1) of ${what}`), Flag.optional)

const flags = {
  port: Flag.Int("port").pipe(
    Flag.withDescription("TCP port on 127.0.0.1; 0 picks a free one (default: the file's port, else 0)"),
    Flag.optional
  ),
  config: Flag.Path("config", { pathType: "file", mustExist: true }).pipe(
    Flag.withDescription(
      "JSON or YAML file: port, host, keys, quotas, faults, requestLogSize, legacyReferencePrefix, maxBodyBytes"
    ),
    Flag.optional
  ),
  quota: Flag.KeyValuePair("quota").pipe(
    Flag.withDescription(
      `requests per second per organisation, e.g. --quota analyzeText=5 (endpoints: ${Object.keys(PATHS).join(", ")})`
    ),
    Flag.optional
  ),
  transient: probability("transient", "answering 503 TRANSIENT_ERROR"),
  drop: probability("drop", "dropping the connection without an answer"),
  stall: probability("stall", "stalling --stall-ms before answering"),
  stallMs: Flag.Int("stall-ms").pipe(Flag.withDescription("length of a stall in ms (default 1000)"), Flag.optional),
  malformed: probability("malformed", "answering a truncated JSON body"),
  seed: Flag.Int("seed").pipe(Flag.withDescription("seed of the fault decisions (reproducible runs)"), Flag.optional),
  requestLogSize: Flag.Int("request-log-size").pipe(
    Flag.withDescription("requests kept for GET /_sandbox/requests (default 1000)"),
    Flag.optional
  )
} as const

const refuse = refuser("sandbox")

const usage = (message: string) => refuse(message, EXIT_USAGE)

/** The `sandbox` subcommand. */
export const sandbox = Command.make("sandbox", flags, (f) =>
  Effect.gen(function* () {
    // Loaded on use: the sandbox (its language detector especially) is heavy, and every other
    // `warden` command would pay for it at start.
    const { Sandbox, SandboxConfig } = yield* Effect.promise(() => import("@warden/sandbox"))
    const file = Option.isSome(f.config)
      ? yield* SandboxConfig.load(f.config.value).pipe(
          Effect.catchTag("SandboxConfigError", (e) => refuse(e.message, EXIT_CONFIG))
        )
      : {}

    const rates: Record<string, number> = {}
    for (const [key, value] of [
      ["transient", f.transient],
      ["drop", f.drop],
      ["stall", f.stall],
      ["malformed", f.malformed],
      ["stallMs", f.stallMs],
      ["seed", f.seed]
    ] as const) {
      if (Option.isSome(value)) rates[key] = value.value
    }
    let faults: Faults.FaultProfile | undefined = file.faults
    if (Object.keys(rates).length > 0) {
      const decoded = SandboxConfig.parse("--flags", JSON.stringify({ faults: { ...file.faults, ...rates } }))
      if (decoded._tag === "Failure") return yield* usage(decoded.failure.message)
      faults = decoded.success.faults
    }

    let quotas: Quotas.QuotaConfig | undefined = file.quotas
    if (Option.isSome(f.quota)) {
      const star: Record<string, { requestsPerSecond: number }> = {}
      for (const [endpoint, value] of Object.entries(f.quota.value))
        star[endpoint] = { requestsPerSecond: Number(value) }
      const decoded = SandboxConfig.parse("--quota", JSON.stringify({ quotas: { ...file.quotas, "*": star } }))
      if (decoded._tag === "Failure") return yield* usage(decoded.failure.message)
      quotas = decoded.success.quotas
    }

    const options: SandboxConfig.SandboxOptions = {
      ...file,
      ...(Option.isSome(f.port) ? { port: f.port.value } : {}),
      ...(faults === undefined ? {} : { faults }),
      ...(quotas === undefined ? {} : { quotas }),
      ...(Option.isSome(f.requestLogSize) ? { requestLogSize: f.requestLogSize.value } : {})
    }
    // One line and exit 1 (a port in use, say), like every other command's failure to start.
    const running = yield* Sandbox.start(options).pipe(
      Effect.catchTag("SandboxStartError", (e) => refuse(`cannot start: ${e.message}`, 1))
    )
    yield* Console.log(`listening on ${running.url}`)
    return yield* Effect.never
  }).pipe(Effect.scoped)
).pipe(
  Command.withDescription(
    "Serve the whole Content Analysis and Feedback API locally (keys: sandbox-standard-key, sandbox-reseller-key, sandbox-expired-key, sandbox-disabled-key)"
  ),
  Command.withExamples([
    { command: "warden sandbox --port 8080", description: "the API on http://127.0.0.1:8080" },
    {
      command: "WARDEN_BASE_URL=http://127.0.0.1:8080 warden analyze text 'hello'",
      description: "then point a client at it (key: sandbox-standard-key)"
    }
  ])
)
