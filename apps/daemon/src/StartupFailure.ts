/**
 * Why the daemon could not start, as one line naming the setting at fault: a sink file that cannot be
 * created (`sinks.0.path: cannot create /sys/warden: permission denied`), the admin port in use
 * (`admin.listen: cannot listen on 127.0.0.1:8787: address already in use`), a PostgreSQL database
 * that does not exist (`state.postgres: database "x" does not exist`). The cause is found in the
 * failure's chain of causes (system error codes, PostgreSQL SQLSTATE codes), never by matching
 * messages. Exit 78 when the value in the file cannot work as written, 1 when the machine or another
 * service is at fault (a port held by another process, a database server down).
 */
import { dirname, resolve } from "node:path"
import { Cause } from "effect"
import type { WardenConfig } from "./config/index.ts"
import { sinkPath } from "./config/SinkSection.ts"
import { errorsIn } from "./state/ErrorChain.ts"
import { describeErrno } from "./state/Errno.ts"
import * as StateProblem from "./state/StateProblem.ts"

/** What to print and how to exit. */
export interface StartupFailure {
  /** The config path at fault (`sinks.0.path`), when one is. */
  readonly setting: string | undefined
  /** The whole line: `setting: what went wrong`. */
  readonly message: string
  readonly exitCode: 1 | 78
}

const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

/** `a` is `b` or inside it. */
const within = (a: string, b: string) => a === b || b.startsWith(`${a}/`)

/** The setting whose file or directory `path` is (a sink's path, the SQLite file), if any. */
const settingOfPath = (config: WardenConfig, path: string): string | undefined => {
  const base = dirname(config.path)
  const hit = config.sinks.findIndex((s) => {
    const file = sinkPath(s)
    return file !== undefined && within(path, resolve(base, file))
  })
  if (hit >= 0) return `sinks.${hit}.path`
  if (config.state._tag === "Sqlite" && within(path, resolve(base, config.state.filename))) return "state.sqlite"
  return undefined
}

const verb = (syscall: string | undefined) =>
  syscall === "mkdir" ? "create" : syscall === "open" ? "open" : syscall === undefined ? "use" : syscall

/** SQLSTATE codes that mean the URL names something that is not there: fix the config. */
const PG_CONFIG_CODES = new Set(["3D000", "28P01", "28000", "3F000", "42501"])

/** Describes a failure to start the daemon built from `config`. */
export const describe = (cause: Cause.Cause<unknown>, config: WardenConfig): StartupFailure => {
  const errors = errorsIn(cause)
  const make = (setting: string | undefined, text: string, exitCode: 1 | 78): StartupFailure => ({
    setting,
    message: setting === undefined ? text : `${setting}: ${text}`,
    exitCode
  })
  for (const e of errors) {
    const code = str(e.code)
    const path = str(e.path)
    if (code !== undefined && path !== undefined) {
      const setting = settingOfPath(config, resolve(path))
      if (setting !== undefined)
        return make(setting, `cannot ${verb(str(e.syscall))} ${path}: ${describeErrno(code, code)}`, 78)
    }
    if (e._tag === "StateInUse") {
      // Another daemon on the SQLite file: transient (1), a supervisor's retry starts once it stops.
      return make("state.sqlite", str(e.message) ?? "in use by another daemon", 1)
    }
    if (e._tag === "RunnerListenError") {
      // The cluster's listen address (ClusterRunner): in use is transient (1), anything else the file (78).
      const message = str(e.message) ?? "cannot listen"
      return make("cluster.runnerAddress", message, message.endsWith("address already in use") ? 1 : 78)
    }
    if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || (code === "EACCES" && str(e.syscall) === "listen")) {
      const { host, port } = config.admin.listen
      return make(
        "admin.listen",
        `cannot listen on ${host}:${port}: ${describeErrno(code, code)}`,
        code === "EADDRINUSE" ? 1 : 78
      )
    }
    if (code !== undefined && /^[0-9A-Z]{5}$/.test(code) && config.state._tag === "Postgres") {
      const message = str(e.message) ?? code
      return make("state.postgres", message, PG_CONFIG_CODES.has(code) ? 78 : 1)
    }
    if ((code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT") && config.state._tag === "Postgres") {
      const where = str(e.address) ?? str(e.hostname) ?? ""
      const port = typeof e.port === "number" ? `:${e.port}` : ""
      return make("state.postgres", `cannot connect to ${where}${port}: ${describeErrno(code, code)}`, 1)
    }
  }
  if (config.state._tag === "Postgres") {
    // A connect that failed otherwise (a server that accepts and never answers: the client's timeout).
    const found = StateProblem.find(cause, "state.postgres")
    if (found !== undefined) return make("state.postgres", found.text.slice("state.postgres: ".length), 1)
  }
  // A sink that could not start and says which of its settings (`sinks.2.subject`).
  const sinkError = errors.find((e) => e._tag === "SinkError")
  if (sinkError !== undefined) return make(str(sinkError.setting), str(sinkError.message) ?? "cannot start", 78)
  // Nothing names a setting: the innermost message, which says most.
  const innermost = [...errors].reverse().find((e) => str(e.message) !== undefined && str(e.message) !== "")
  return make(undefined, `cannot start: ${str(innermost?.message) ?? String(Cause.squash(cause))}`, 1)
}
