/**
 * Whether a failure means the state store cannot be written or reached (a full disk, an I/O error, a
 * PostgreSQL server gone or shutting down), and if so the one line that says it:
 * `state.sqlite: database or disk is full (SQLITE_FULL)`, `state.postgres: cannot connect to
 * 10.0.0.5:5432: connection refused (ECONNREFUSED)`. Found by codes in the failure's chain of causes
 * (SQLite result codes, system error codes, PostgreSQL SQLSTATE), never by matching messages; effect's
 * `SqlError`, effect/cluster's `PersistenceError` and Node's errors each keep the one below as `cause`.
 * A failure that is not one of these (a constraint, a bug) is `undefined`: a fault of its own, not an
 * outage of the store.
 */
import { type ErrorLike, errorsIn } from "./ErrorChain.ts"
import { codeOf, describeErrno } from "./Errno.ts"
import type { Problem } from "./Outage.ts"

/** The setting of the state store: where its problems are named. */
export type StateSetting = "state.sqlite" | "state.postgres"

/** SQLite primary result codes that mean the file cannot take writes now (sqlite.org/rescode.html). */
const SQLITE_CODES: Readonly<Record<number, string>> = {
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  8: "SQLITE_READONLY",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  26: "SQLITE_NOTADB"
}

/** System error codes of a disk that refuses writes, or of a database server out of reach. */
const SYSTEM_CODES = new Set([
  "ENOSPC",
  "EDQUOT",
  "EIO",
  "EROFS",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN"
])

/** PostgreSQL SQLSTATEs of a server that is gone, starting or stopping, or out of disk (appendix A). */
const PG_STATES: Readonly<Record<string, string>> = {
  "57P01": "the server is shutting down",
  "57P02": "the server crashed",
  "57P03": "the server is starting up or shutting down",
  "53100": "the server's disk is full",
  "53200": "the server is out of memory",
  "58030": "the server had an I/O error"
}

const str = (u: unknown): string | undefined => (typeof u === "string" && u !== "" ? u : undefined)

/** What one error says, if it is one of the codes above. */
const problemOf = (e: ErrorLike, setting: StateSetting): Problem | undefined => {
  const make = (what: string, code: string): Problem => ({ text: `${setting}: ${what} (${code})`, setting, code })
  // node:sqlite: `code` is ERR_SQLITE_ERROR, the result code is `errcode` (extended codes keep the
  // primary one in the low byte), SQLite's own words for it `errstr`.
  if (typeof e.errcode === "number") {
    const name = SQLITE_CODES[e.errcode & 0xff]
    return name === undefined ? undefined : make(str(e.errstr) ?? name, name)
  }
  const code = codeOf(e)
  if (code === undefined) return undefined
  if (SYSTEM_CODES.has(code)) {
    const where = str(e.address) ?? str(e.hostname)
    const port = typeof e.port === "number" ? `:${e.port}` : ""
    const what = describeErrno(code, code)
    return make(where === undefined ? what : `cannot connect to ${where}${port}: ${what}`, code)
  }
  if (code.startsWith("08")) return make(str(e.message) ?? "connection failure", code)
  const state = PG_STATES[code]
  return state === undefined ? undefined : make(state, code)
}

/**
 * The state store's problem in `failure` (a Cause, or an error), or `undefined` when it is not one. A
 * failure to connect is one whatever its code (effect/sql's `ConnectionError`, or a reason whose
 * operation is `connect`: PostgreSQL refusing the connection, `55000` for a database that does not
 * allow connections now), named by the server's own words when it answered.
 */
export const find = (failure: unknown, setting: StateSetting): Problem | undefined => {
  const errors = errorsIn(failure)
  // The innermost code says most: SqlError wraps a reason that wraps the driver's error.
  for (let i = errors.length - 1; i >= 0; i--) {
    const problem = problemOf(errors[i]!, setting)
    if (problem !== undefined) return problem
  }
  const at = errors.findIndex((e) => e._tag === "ConnectionError" || e.operation === "connect")
  if (at < 0) return undefined
  const answer = errors.slice(at + 1).findLast((e) => codeOf(e) !== undefined && str(e.message) !== undefined)
  return answer === undefined
    ? { text: `${setting}: ${str(errors[at]!.message) ?? "cannot connect"}`, setting, code: "ConnectionError" }
    : { text: `${setting}: ${str(answer.message)} (${codeOf(answer)})`, setting, code: codeOf(answer) }
}
