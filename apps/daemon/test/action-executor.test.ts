/**
 * The action executor (engine/ActionExecutor.ts) on the TestClock, on a real SQLite state file: a
 * retryable platform error is retried after 1 s, then 2 s, doubling; a platform's longer retry-after
 * is waited out; a permanent error fails the action at once; a retryable one is given up after 8
 * attempts; an action whose outcome the store refused is recorded when it takes writes again, not run
 * again. The platform end to end (an HTTP platform answering 503) is in policy.test.ts.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Action, type Source } from "@warden/connector"
import { Clock, Effect, Layer, Stream } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { TestClock } from "effect/testing"
import { sqlLayer } from "../src/Daemon.ts"
import * as ActionExecutor from "../src/engine/ActionExecutor.ts"
import { ActionStore } from "../src/state/ActionStore.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import { StateHealth } from "../src/state/StateHealth.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { itemRecord } from "./support/ItemRecords.ts"
import { adjustTo, atWallTime, eventually } from "./support/TestTime.ts"

/** The platform's error for the `hide` of r/1: retryable "platform busy" unless `fields` say otherwise. */
const platformError = (fields: Partial<ConstructorParameters<typeof Action.ActionError>[0]> = {}) =>
  new Action.ActionError({
    kind: "hide",
    reference: "r/1",
    reason: "Unavailable",
    retryable: true,
    message: "platform busy",
    ...fields
  })
const busy = platformError()

/**
 * A fresh state file's one pending `hide` of r/1, and a platform source whose `act` answers
 * `answer(attempt)` (1-based) and records when each attempt came (TestClock milliseconds since
 * `start`). The TestClock is at the real time from here on.
 */
const platform = (answer: (attempt: number) => Effect.Effect<Action.ActionResult, Action.ActionError>) =>
  Effect.gen(function* () {
    yield* atWallTime
    const start = yield* Clock.currentTimeMillis
    const attempts: Array<number> = []
    const source: Source.Source = {
      events: () => Stream.never,
      act: () =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          attempts.push(now - start)
          return answer(attempts.length)
        })
    }
    yield* (yield* ItemStore).recordItems([
      {
        item: itemRecord("s", "r/1", 1),
        sinks: [],
        payload: "{}",
        actions: [
          { seq: 0, rule: "hide-it", kind: "hide", params: undefined, reason: "rule hide-it", status: "pending" }
        ]
      }
    ])
    return { start, attempts, source }
  })

/**
 * A platform source whose `act` answers `answer(attempt)` (1-based) and records when each attempt
 * came (TestClock milliseconds since the first), and the executor running on it over a fresh state
 * file with one pending `hide` of r/1, the TestClock at the real time.
 */
const executing = (answer: (attempt: number) => Effect.Effect<Action.ActionResult, Action.ActionError>) =>
  Effect.gen(function* () {
    const { start, attempts, source } = yield* platform(answer)
    yield* Effect.forkScoped(ActionExecutor.run("s", source))
    yield* eventually(
      Effect.sync(() => attempts.length === 1),
      "the first attempt"
    )
    const store = yield* ActionStore
    const row = Effect.map(store.actionsOf("r/1", "s"), (rows) => rows[0]!)
    return { attempts, row, at: (offset: number) => adjustTo(start + offset) }
  })

/**
 * Moves the clock to 127 s after the first attempt and checks the action was tried 8 times on the
 * backoff (0, 1, 3, 7 ... 127 s), recorded as failed with 8 attempts, and never tried again.
 */
const givenUpAtTheEighth = (t: Effect.Success<ReturnType<typeof executing>>) =>
  Effect.gen(function* () {
    yield* t.at(127_000)
    yield* eventually(
      Effect.map(t.row, (r) => r.status === "failed"),
      "the action given up"
    )
    assert.deepStrictEqual(
      t.attempts,
      [0, 1, 3, 7, 15, 31, 63, 127].map((s) => s * 1000)
    )
    assert.strictEqual((yield* t.row).attempts, ActionExecutor.MAX_ATTEMPTS)
    yield* TestClock.adjust("1 hour")
    assert.strictEqual(t.attempts.length, 8)
  })

const onStateFile = <A, E, R>(test: Effect.Effect<A, E, R>) =>
  test.pipe(
    Effect.provide(
      StateStore.layer.pipe(
        Layer.provideMerge(
          sqlLayer({ _tag: "sqlite", filename: join(mkdtempSync(join(tmpdir(), "warden-actions-")), "state.db") })
        )
      )
    ),
    Effect.scoped
  )

describe("the action executor, on the TestClock", () => {
  it("waits 1 s after the first failure, doubling up to 5 minutes", () => {
    assert.deepStrictEqual(
      [1, 2, 3, 4].map((n) => ActionExecutor.retryDelayMillis(n)),
      [1000, 2000, 4000, 8000]
    )
    assert.strictEqual(ActionExecutor.retryDelayMillis(20), 300_000)
  })

  it.effect("retries a retryable failure after 1 s, then 2 s, and records the action once as done", () =>
    onStateFile(
      Effect.gen(function* () {
        const t = yield* executing((attempt) => (attempt <= 2 ? Effect.fail(busy) : Effect.succeed({ status: "done" })))
        yield* eventually(
          Effect.map(t.row, (r) => r.attempts === 1),
          "the first failure recorded"
        )
        assert.deepInclude(yield* t.row, { status: "pending", lastError: "platform busy" })
        yield* t.at(999)
        assert.deepStrictEqual(t.attempts, [0])
        yield* t.at(1000)
        yield* eventually(
          Effect.sync(() => t.attempts.length === 2),
          "the second attempt"
        )
        yield* t.at(2999)
        assert.deepStrictEqual(t.attempts, [0, 1000])
        yield* t.at(3000)
        yield* eventually(
          Effect.map(t.row, (r) => r.status === "done"),
          "the action done"
        )
        assert.deepStrictEqual(t.attempts, [0, 1000, 3000])
        assert.strictEqual((yield* t.row).attempts, 3)
        yield* TestClock.adjust("10 minutes")
        assert.strictEqual(t.attempts.length, 3)
      })
    )
  )

  it.effect("waits out the platform's retry-after when it is longer than the backoff", () =>
    onStateFile(
      Effect.gen(function* () {
        const t = yield* executing((attempt) =>
          attempt === 1
            ? Effect.fail(platformError({ reason: "RateLimited", retryAfterMillis: 5_000 }))
            : Effect.succeed({ status: "done" })
        )
        yield* t.at(4999)
        assert.deepStrictEqual(t.attempts, [0])
        yield* t.at(5000)
        yield* eventually(
          Effect.map(t.row, (r) => r.status === "done"),
          "the action done"
        )
        assert.deepStrictEqual(t.attempts, [0, 5000])
      })
    )
  )

  it.effect("records a permanent failure as failed with its reason, and never tries it again", () =>
    onStateFile(
      Effect.gen(function* () {
        const t = yield* executing(() =>
          Effect.fail(platformError({ reason: "PermissionDenied", retryable: false, message: "not a moderator" }))
        )
        yield* eventually(
          Effect.map(t.row, (r) => r.status === "failed"),
          "the action failed"
        )
        assert.strictEqual((yield* t.row).lastError, "not a moderator")
        yield* TestClock.adjust("10 minutes")
        assert.deepStrictEqual(t.attempts, [0])
      })
    )
  )

  it.effect("counts a connector's defect as a failed attempt: retried with the backoff, given up after 8", () =>
    onStateFile(
      Effect.gen(function* () {
        const t = yield* executing(() => Effect.die(new Error("connector bug: cannot read id")))
        yield* eventually(
          Effect.map(t.row, (r) => r.attempts === 1),
          "the first failure recorded"
        )
        assert.include((yield* t.row).lastError, "connector bug: cannot read id")
        yield* t.at(999)
        assert.deepStrictEqual(t.attempts, [0])
        yield* givenUpAtTheEighth(t)
      })
    )
  )

  it.effect("gives a retryable failure up after 8 attempts, the last 127 s after the first", () =>
    onStateFile(
      Effect.gen(function* () {
        const t = yield* executing(() => Effect.fail(busy))
        yield* t.at(126_999)
        assert.strictEqual(t.attempts.length, 7)
        yield* givenUpAtTheEighth(t)
      })
    )
  )

  it.effect(
    "runs an action whose retry an earlier process scheduled when it falls due, not at its next unasked look",
    () =>
      onStateFile(
        Effect.gen(function* () {
          const { start, attempts, source } = yield* platform(() => Effect.succeed({ status: "done" }))
          // It failed once in the process before this one, which scheduled its retry 2 s after this start.
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE warden_actions SET attempts = 1, next_attempt_at = ${start + 2_000}`
          yield* Effect.forkScoped(ActionExecutor.run("s", source))
          yield* adjustTo(start + 1_999)
          assert.deepStrictEqual(attempts, [])
          // On SQLite the executor looks unasked every 10 s: without the retry's time read at start, the
          // action would wait for that look.
          yield* adjustTo(start + 2_000)
          yield* eventually(
            Effect.sync(() => attempts.length === 1),
            "the retry at 2 s",
            "5 seconds"
          )
          assert.deepStrictEqual(attempts, [2_000])
        })
      )
  )

  it.effect(
    "an action run whose outcome the state store refused (its disk full) is recorded once the store takes it, not run again",
    () =>
      onStateFile(
        Effect.gen(function* () {
          const { start, attempts, source } = yield* platform(() => Effect.succeed({ status: "done" }))
          const store = yield* ActionStore
          let refusals = 2
          const refusing = {
            ...store,
            finishAction: (...args: Parameters<typeof store.finishAction>) =>
              Effect.suspend(() => (refusals-- > 0 ? Effect.fail(databaseFull()) : store.finishAction(...args)))
          }
          yield* Effect.forkScoped(ActionExecutor.run("s", source).pipe(Effect.provideService(ActionStore, refusing)))
          yield* eventually(
            Effect.sync(() => attempts.length === 1),
            "the action run"
          )
          const health = yield* StateHealth
          yield* eventually(
            Effect.sync(() => health.problem() !== undefined),
            "the refusal reported"
          )
          // Its record is retried on the store's backoff (200 ms, then 400 ms, ±20%); the action is not.
          yield* adjustTo(start + 5_000)
          const row = Effect.map(store.actionsOf("r/1", "s"), (rows) => rows[0]!)
          yield* eventually(
            Effect.map(row, (r) => r.status === "done"),
            "the outcome recorded"
          )
          yield* adjustTo(start + 60_000)
          assert.deepStrictEqual(attempts, [0])
          assert.strictEqual(health.problem(), undefined)
        })
      )
  )
})

/** What node:sqlite throws when the file cannot grow (a full disk), as the SQLite client wraps it. */
const databaseFull = () =>
  new SqlError.SqlError({
    reason: SqlError.classifySqliteError(
      Object.assign(new Error("database or disk is full"), { code: "ERR_SQLITE_ERROR", errcode: 13, errno: 13 }),
      { message: "Failed to execute statement", operation: "execute" }
    )
  })
