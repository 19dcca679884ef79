/**
 * A source's failure mode on the TestClock (engine/ApiHealth.ts): `hold` never degrades; `allow` and
 * `reject` only past their delay, and then the API is still tried for real once per 10 s counted from
 * the end of the last try, never twice in a row by one batch. The pause line is due once a minute.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as ApiHealth from "../src/engine/ApiHealth.ts"

describe("ApiHealth", () => {
  it.effect("hold never degrades, however long the API is gone", () =>
    Effect.gen(function* () {
      const api = yield* ApiHealth.make(undefined)
      yield* api.unavailable
      yield* TestClock.adjust("1 day")
      assert.strictEqual(yield* api.degradedNow(false), undefined)
      assert.strictEqual(yield* api.degradedNow(true), undefined)
    })
  )

  it.effect("a source answered by the API is not degraded", () =>
    Effect.gen(function* () {
      const api = yield* ApiHealth.make({ mode: "allow", afterMillis: 0 })
      assert.strictEqual(yield* api.degradedNow(true), undefined)
      assert.isFalse(yield* api.answered)
    })
  )

  it.effect("allow applies past its delay, counted from the first failure", () =>
    Effect.gen(function* () {
      const api = yield* ApiHealth.make({ mode: "allow", afterMillis: 30_000 })
      yield* api.unavailable
      yield* TestClock.adjust("20 seconds")
      yield* api.unavailable // a later failure does not move the outage's start
      yield* TestClock.adjust("9999 millis")
      assert.strictEqual(yield* api.degradedNow(true), undefined, "29.999 s: still held")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* api.degradedNow(true), "allow", "30 s: the batch that just tried goes through degraded")
    })
  )

  it.effect("while degraded, one batch tries the API per 10 s, counted from the end of the last try", () =>
    Effect.gen(function* () {
      const api = yield* ApiHealth.make({ mode: "reject", afterMillis: 0 })
      yield* api.unavailable
      assert.strictEqual(yield* api.degradedNow(false), undefined, "the first batch tries the API")
      assert.strictEqual(yield* api.degradedNow(false), "reject", "the batches beside it go degraded")
      // The try took 15 s (a timeout): the next one is due 10 s after it ended, not after it started.
      yield* TestClock.adjust("15 seconds")
      yield* api.tried
      yield* TestClock.adjust("9 seconds")
      assert.strictEqual(yield* api.degradedNow(false), "reject")
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* api.degradedNow(true), "reject", "never the batch that just tried")
      assert.strictEqual(yield* api.degradedNow(false), undefined, "10 s after the try: another batch tries")
    })
  )

  it.effect("the API answering ends the outage once", () =>
    Effect.gen(function* () {
      const api = yield* ApiHealth.make({ mode: "allow", afterMillis: 0 })
      yield* api.unavailable
      assert.isTrue(yield* api.answered)
      assert.isFalse(yield* api.answered)
      assert.strictEqual(yield* api.degradedNow(true), undefined)
    })
  )

  it.effect("the line of a paused source is due once a minute", () =>
    Effect.gen(function* () {
      const api = yield* ApiHealth.make(undefined)
      assert.isTrue(yield* api.pauseLogDue)
      yield* TestClock.adjust("59 seconds")
      assert.isFalse(yield* api.pauseLogDue)
      yield* TestClock.adjust("1 second")
      assert.isTrue(yield* api.pauseLogDue)
      assert.isFalse(yield* api.pauseLogDue)
    })
  )
})
