/**
 * What the analysis step does with a 429 (issue 19), on the TestClock: the refused call is sent again
 * at once (the transport's limiter paces it), only a call refused again and again waits; and legacy
 * rounds go as calls of at most 100 messages, each item's messages together.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import { callOnce, quotaRetryDelayMillis } from "../src/engine/Analyzer.ts"
import { groups } from "../src/engine/LegacyAnalyzer.ts"

const quotaError = { _tag: "QuotaError", message: "analyze.message.requests_per_second exceeded" }

/** A call refused with a 429 `refusals` times, then answered; counts its attempts. */
const refusedThenAnswered = (refusals: number) => {
  let attempts = 0
  const call = Effect.suspend(() => {
    attempts++
    return attempts <= refusals ? Effect.fail(quotaError) : Effect.succeed("answer")
  })
  return { call, attempts: () => attempts }
}

describe("a 429 in the analysis step", () => {
  it.effect("is sent again at once, twice, without waiting for the clock", () =>
    Effect.gen(function* () {
      const c = refusedThenAnswered(2)
      const fiber = yield* Effect.forkChild(callOnce("src", "/analyze/v1/text", c.call))
      // no time passes: the limiter, not this step, decides when the new attempt goes
      yield* TestClock.adjust(0)
      const done = yield* Fiber.await(fiber).pipe(Effect.timeoutOption(0))
      assert.isTrue(Option.isSome(done))
      assert.strictEqual(yield* Fiber.join(fiber), "answer")
      assert.strictEqual(c.attempts(), 3)
    })
  )

  it.effect("waits 50 ms before the third retry, doubling to 1 s, and never gives up", () =>
    Effect.gen(function* () {
      const c = refusedThenAnswered(9)
      const fiber = yield* Effect.forkChild(callOnce("src", "/analyze/v1/text", c.call))
      yield* TestClock.adjust(0)
      assert.strictEqual(c.attempts(), 3)
      yield* TestClock.adjust(49)
      assert.strictEqual(c.attempts(), 3)
      yield* TestClock.adjust(1)
      assert.strictEqual(c.attempts(), 4)
      // 100, 200, 400, 800, then 1000 ms: attempts 5 to 10
      yield* TestClock.adjust(100 + 200 + 400 + 800 + 1000 + 1000)
      assert.strictEqual(yield* Fiber.join(fiber), "answer")
      assert.strictEqual(c.attempts(), 10)
      assert.deepStrictEqual([1, 2, 3, 4, 5, 8, 20].map(quotaRetryDelayMillis), [0, 0, 50, 100, 200, 1000, 1000])
    })
  )

  it.effect("a bad request is recorded as failed, not retried", () =>
    Effect.gen(function* () {
      let attempts = 0
      const call = Effect.suspend(() => {
        attempts++
        return Effect.fail({ _tag: "BadRequestError", message: "text: too long" })
      })
      const outcome = yield* callOnce("src", "/analyze/v1/text", call)
      assert.strictEqual(attempts, 1)
      assert.strictEqual((outcome as { status: string }).status, "failed")
    })
  )
})

describe("legacy rounds", () => {
  const item = (key: string, n: number) => ({ key, messages: Array.from({ length: n }, () => ({ text: key })) })

  it("go as calls of at most 100 messages, each item's messages in one call", () => {
    const round = [item("a", 60), item("b", 30), item("c", 20), item("d", 100), item("e", 1), item("f", 130)]
    const calls = groups(round, 100)
    assert.deepStrictEqual(
      calls.map((g) => g.map((i) => i.key)),
      [["a", "b"], ["c"], ["d"], ["e"], ["f"]]
    )
    // every item once, in order
    assert.deepStrictEqual(
      calls.flat().map((i) => i.key),
      ["a", "b", "c", "d", "e", "f"]
    )
  })
})
