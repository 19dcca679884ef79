/**
 * `warden config check --connect`: what can be tried before `warden run`, without starting anything
 * that stays: every file the daemon writes can be created (jsonl sinks, the SQLite file), the admin
 * port is free, the PostgreSQL database answers, and the API accepts the key. The key is tried with a
 * request the API refuses before analysing anything (an empty analyze body: 400 once the key is
 * accepted, 401/403 otherwise; an empty legacy batch), so no content is analysed and no verdict made.
 * Each problem is one line naming the setting, like `warden run` prints when it cannot start.
 */
import { createServer } from "node:net"
import { dirname, resolve } from "node:path"
import { Transport } from "@warden/transport"
import { Duration, Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { toApiConfigInput, type WardenConfig } from "../config/index.ts"
import { sinkPath } from "../config/SinkSection.ts"
import { sqlLayer } from "../state/StateSql.ts"
import * as StartupFailure from "../StartupFailure.ts"
import * as Writable from "./Writable.ts"

/** The outcome of one probe. */
export interface Probe {
  /** The setting tried (`sinks.0.path`, `admin.listen`, `state.postgres`, `api.apiKey`). */
  readonly setting: string
  /** What was tried, for the summary (`/var/log/verdicts.jsonl writable`). */
  readonly what: string
  /** Why it failed (the whole line, setting first), or `undefined` when it worked. */
  readonly problem: string | undefined
  /** Exit code the problem deserves: 78 the file is wrong, 1 the machine or a service is. */
  readonly exitCode: 1 | 78
}

const ok = (setting: string, what: string): Probe => ({ setting, what, problem: undefined, exitCode: 1 })
const failed = (setting: string, what: string, problem: string, exitCode: 1 | 78): Probe => ({
  setting,
  what,
  problem: `${setting}: ${problem}`,
  exitCode
})

/** The files the daemon would create or append to. */
const files = (config: WardenConfig): Array<Probe> => {
  const base = dirname(config.path)
  const targets: Array<[string, string]> = config.sinks.flatMap((s, i) => {
    const file = sinkPath(s)
    return file === undefined ? [] : [[`sinks.${i}.path`, resolve(base, file)] as [string, string]]
  })
  if (config.state._tag === "Sqlite" && config.state.filename !== ":memory:")
    targets.push(["state.sqlite", resolve(base, config.state.filename)])
  return targets.map(([setting, file]) => {
    const problem = Writable.problemOf(file, { createDirectories: true })
    return problem === undefined
      ? ok(setting, `${file} writable`)
      : failed(setting, `${file} writable`, `cannot create ${file}: ${problem}`, 78)
  })
}

/** Whether the admin address can be listened on (and frees it at once). */
const adminPort = (config: WardenConfig): Effect.Effect<Probe> => {
  const { host, port } = config.admin.listen
  const what = `${host}:${port} free`
  if (port === 0) return Effect.succeed(ok("admin.listen", what))
  return Effect.callback<Probe>((resume) => {
    const server = createServer()
    server.once("error", (e: NodeJS.ErrnoException) =>
      resume(
        Effect.succeed(
          failed(
            "admin.listen",
            what,
            `cannot listen on ${host}:${port}: ${Writable.describeErrno(e.code, e.message)}`,
            e.code === "EADDRINUSE" ? 1 : 78
          )
        )
      )
    )
    server.listen(port, host, () => server.close(() => resume(Effect.succeed(ok("admin.listen", what)))))
  })
}

/** Whether the PostgreSQL database answers `SELECT 1` within 10 seconds. */
const database = (config: WardenConfig): Effect.Effect<Array<Probe>> => {
  if (config.state._tag !== "Postgres") return Effect.succeed([])
  const what = "database reachable"
  return Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT 1`
  }).pipe(
    Effect.provide(sqlLayer({ _tag: "postgres", url: config.state.url })),
    Effect.scoped,
    Effect.timeoutOrElse({
      duration: Duration.seconds(10),
      orElse: () => Effect.fail(new Error("no answer within 10 seconds"))
    }),
    Effect.exit,
    Effect.map((exit) => {
      if (Exit.isSuccess(exit)) return [ok("state.postgres", what)]
      const failure = StartupFailure.describe(exit.cause, config)
      return [
        {
          setting: "state.postgres",
          what,
          problem: failure.setting === undefined ? `state.postgres: ${failure.message}` : failure.message,
          exitCode: failure.exitCode
        }
      ]
    })
  )
}

/** The API's answer to a request it refuses before analysing: the key is accepted unless 401/403. */
const tryKey = (
  config: WardenConfig,
  endpoint: "analyzeText" | "legacyAnalyze",
  body: string,
  setting: string,
  urlSetting: string
): Effect.Effect<Probe> => {
  const what = `${endpoint === "legacyAnalyze" ? "legacy " : ""}API key accepted`
  return Effect.flatMap(Transport.Transport, (t) => t.send({ endpoint, body })).pipe(
    Effect.as(ok(setting, what)),
    Effect.catch((error: { readonly _tag: string; readonly message: string }) => {
      switch (error._tag) {
        case "BadRequestError":
          return Effect.succeed(ok(setting, what))
        case "AuthenticationError":
        case "PermissionDeniedError":
          return Effect.succeed(
            failed(
              setting,
              what,
              `the ${endpoint === "legacyAnalyze" ? "legacy endpoint" : "API"} refused the key: ${error.message}`,
              78
            )
          )
        case "TransportError":
          return Effect.succeed(failed(urlSetting, what, `cannot reach the API: ${error.message}`, 1))
        default:
          return Effect.succeed(failed(urlSetting, what, `unexpected answer: ${error.message}`, 1))
      }
    }),
    Effect.provide(Transport.Transport.layerOptions({ ...toApiConfigInput(config.api), retry: { maxAttempts: 1 } })),
    Effect.catch((e: { readonly message: string }) => Effect.succeed(failed("api", what, e.message, 78)))
  )
}

/** The API keys, for the APIs the sources use. */
const apiKeys = (config: WardenConfig): Effect.Effect<Array<Probe>> => {
  const probes: Array<Effect.Effect<Probe>> = []
  const baseUrl = config.api.region === "global" ? "api.baseUrl" : `api.baseUrl (${config.api.region})`
  if (config.sources.some((s) => s.mode === "v1"))
    probes.push(tryKey(config, "analyzeText", "{}", "api.apiKey", baseUrl))
  if (config.sources.some((s) => s.mode === "legacy"))
    probes.push(
      tryKey(
        config,
        "legacyAnalyze",
        '{"channelUuid":"warden-config-check","contents":[]}',
        config.api.legacyApiKey === undefined ? "api.apiKey" : "api.legacyApiKey",
        "api.legacyBaseUrl"
      )
    )
  return Effect.all(probes, { concurrency: "unbounded" })
}

/** Every probe, in the order of the file's sections. */
export const probes = (config: WardenConfig): Effect.Effect<ReadonlyArray<Probe>> =>
  Effect.gen(function* () {
    const [api, db, admin] = yield* Effect.all([apiKeys(config), database(config), adminPort(config)], {
      concurrency: "unbounded"
    })
    const written = files(config)
    const sqlite = written.filter((p) => p.setting === "state.sqlite")
    return [...api, ...sqlite, ...db, ...written.filter((p) => p.setting !== "state.sqlite"), admin]
  })
