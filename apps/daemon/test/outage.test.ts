/**
 * The pieces that make a bad day a few clear lines: a part's outage (one line when it starts, one when
 * it ends, on the TestClock), warnings repeated per attempt (one a minute), which failures are the
 * state store's problem (by code), and directories created without Node's endless recursive mkdir.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { TestClock } from "effect/testing"
import * as Directories from "../src/state/Directories.ts"
import * as Outage from "../src/state/Outage.ts"
import * as RepeatedWarnings from "../src/state/RepeatedWarnings.ts"
import * as StateProblem from "../src/state/StateProblem.ts"

/** Runs `f` with a logger collecting `LEVEL message` lines. */
const logged = <A, E>(f: (lines: Array<string>) => Effect.Effect<A, E>) => {
  const lines: Array<string> = []
  return f(lines).pipe(
    Effect.provide(
      Logger.layer([
        Logger.make(({ message, logLevel }) => lines.push(`${logLevel} ${[message].flat().map(String).join(" ")}`))
      ])
    )
  )
}

const wording: Outage.Wording = {
  down: (problem) => `down: ${problem.text}`,
  up: (problem, seconds, failures) => `up: ${problem.text} after ${seconds} s and ${failures} failures`
}

describe("an outage, on the TestClock", () => {
  it.effect("many failures are one line; the end line comes once nothing failed for 10 s", () =>
    logged((lines) =>
      Effect.gen(function* () {
        const outage = Outage.make(wording)
        for (let i = 0; i < 50; i++) yield* outage.failed("batches", { text: "disk full" })
        yield* outage.failed("acks", { text: "disk full" })
        assert.deepStrictEqual(lines, ["Error down: disk full"])
        yield* TestClock.adjust("3 seconds")
        // An operation clears only itself: the acknowledgements work, the batches still fail.
        yield* outage.recovered("acks")
        assert.strictEqual(outage.problem()?.text, "disk full")
        yield* outage.recovered("batches")
        // Up at once (readiness, the waiting work), the line 10 s later.
        assert.strictEqual(outage.problem(), undefined)
        yield* outage.up
        yield* TestClock.adjust("9 seconds")
        assert.deepStrictEqual(lines, ["Error down: disk full"])
        // A failure within those 10 s continues the same outage: no new start line.
        yield* outage.failed("batches", { text: "disk full" })
        yield* TestClock.adjust("1 second")
        yield* outage.recovered("batches")
        yield* TestClock.adjust("10 seconds")
        assert.deepStrictEqual(lines, ["Error down: disk full", "Info up: disk full after 13 s and 52 failures"])
        // The next failure is a new outage.
        yield* outage.failed("batches", { text: "connection refused" })
        assert.strictEqual(lines.at(-1), "Error down: connection refused")
      })
    )
  )
})

describe("warnings repeated per attempt, on the TestClock", () => {
  it.effect("one line a minute per key, the next saying how many were left out", () =>
    logged((lines) =>
      Effect.gen(function* () {
        const warnings = RepeatedWarnings.make()
        for (let i = 0; i < 300; i++) yield* warnings.log("retry", "Warn", "delivery failed, will retry: HTTP 503")
        yield* warnings.log("dead", "Error", "moved to dead letters")
        yield* TestClock.adjust("59 seconds")
        yield* warnings.log("retry", "Warn", "delivery failed, will retry: HTTP 503")
        yield* TestClock.adjust("1 second")
        yield* warnings.log("retry", "Warn", "delivery failed, will retry: HTTP 500")
        assert.deepStrictEqual(lines, [
          "Warn delivery failed, will retry: HTTP 503",
          "Error moved to dead letters",
          "Warn delivery failed, will retry: HTTP 500 (300 more like this in the last 60 s)"
        ])
      })
    )
  )
})

/** A node:sqlite error with SQLite result code `errcode`. */
const sqliteError = (errcode: number, errstr: string) =>
  Object.assign(new Error(errstr), { code: "ERR_SQLITE_ERROR", errcode, errstr })

describe("the state store's problem in a failure", () => {
  it("is found by code under the wrappers, named by its setting; anything else is not one", () => {
    const wrapped = (inner: unknown) => ({ _tag: "SqlError", cause: { _tag: "UnknownError", cause: inner } })
    assert.deepStrictEqual(StateProblem.find(wrapped(sqliteError(13, "database or disk is full")), "state.sqlite"), {
      text: "state.sqlite: database or disk is full (SQLITE_FULL)",
      setting: "state.sqlite",
      code: "SQLITE_FULL"
    })
    // An extended code (SQLITE_IOERR_WRITE) is its primary code.
    assert.strictEqual(
      StateProblem.find(wrapped(sqliteError(778, "disk I/O error")), "state.sqlite")?.text,
      "state.sqlite: disk I/O error (SQLITE_IOERR)"
    )
    assert.strictEqual(
      StateProblem.find(
        Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED", address: "10.0.0.5", port: 5432 }),
        "state.postgres"
      )?.text,
      "state.postgres: cannot connect to 10.0.0.5:5432: connection refused (ECONNREFUSED)"
    )
    assert.strictEqual(
      StateProblem.find(
        wrapped(Object.assign(new Error("terminating connection"), { code: "57P01" })),
        "state.postgres"
      )?.text,
      "state.postgres: the server is shutting down (57P01)"
    )
    // A refused connect is one whatever its code, in the server's words.
    assert.strictEqual(
      StateProblem.find(
        {
          _tag: "SqlError",
          cause: {
            _tag: "UnknownError",
            operation: "connect",
            message: "PgConnection: Failed to connect",
            cause: Object.assign(new Error('database "w" is not currently accepting connections'), { code: "55000" })
          }
        },
        "state.postgres"
      )?.text,
      'state.postgres: database "w" is not currently accepting connections (55000)'
    )
    assert.strictEqual(
      StateProblem.find(wrapped(sqliteError(19, "UNIQUE constraint failed")), "state.sqlite"),
      undefined
    )
    assert.strictEqual(StateProblem.find(new Error("a bug"), "state.sqlite"), undefined)
  })
})

describe("a directory the daemon writes in", () => {
  it.effect(
    "is created with its parents; one /proc refuses fails at once with ENOENT (Node's recursive mkdir loops)",
    () =>
      Effect.gen(function* () {
        const failure = yield* Effect.flip(Directories.ensure("/proc/warden-test/out"))
        assert.deepStrictEqual([failure.code, failure.syscall, failure.path], ["ENOENT", "mkdir", "/proc/warden-test"])
      })
  )
})
