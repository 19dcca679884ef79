/**
 * The wake-ups of the checks waiting on an item's decision (state/RecordedSignal.ts), on the TestClock:
 * a wait looks again every `lookEveryMillis`, at once when its item is announced, and gives up at its
 * deadline (Clock milliseconds) with nothing found; what runs after its first miss runs once, and an
 * announcement made while it runs is not lost.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import * as RecordedSignal from "../src/state/RecordedSignal.ts"

const key = RecordedSignal.keyOf("forum", "post-1")

describe("a recorded signal", () => {
  it.effect("looks every lookEveryMillis until its deadline, then answers none", () =>
    Effect.gen(function* () {
      const signal = RecordedSignal.make()
      let looks = 0
      const look = Effect.sync(() => {
        looks++
        return Option.none<string>()
      })
      const until = (yield* Clock.currentTimeMillis) + 1_000
      const fiber = yield* Effect.forkChild(signal.until(key, look, until, 300))
      yield* Effect.yieldNow
      assert.strictEqual(looks, 1)
      yield* TestClock.adjust(300)
      assert.strictEqual(looks, 2)
      yield* TestClock.adjust(700)
      const found = yield* Fiber.join(fiber)
      assert.isTrue(Option.isNone(found))
      // 0, 300, 600, 900 and the last look at the deadline (1000).
      assert.strictEqual(looks, 5)
    })
  )

  it.effect("looks again at once when its item is announced, and answers what it found", () =>
    Effect.gen(function* () {
      const signal = RecordedSignal.make()
      let recorded = false
      const look = Effect.sync(() => (recorded ? Option.some("allow") : Option.none<string>()))
      const until = (yield* Clock.currentTimeMillis) + 10_000
      const fiber = yield* Effect.forkChild(signal.until(key, look, until, 5_000))
      yield* Effect.yieldNow
      recorded = true
      signal.announce([RecordedSignal.keyOf("forum", "other"), key])
      const found = yield* Fiber.join(fiber)
      assert.deepStrictEqual(found, Option.some("allow"))
      assert.strictEqual(yield* Clock.currentTimeMillis, until - 10_000)
    })
  )

  it.effect("runs onFirstMiss once, after a first look that found nothing; its announcement is not lost", () =>
    Effect.gen(function* () {
      const signal = RecordedSignal.make()
      let recorded = false
      let looks = 0
      let handedIn = 0
      const look = Effect.sync(() => {
        looks++
        return recorded ? Option.some("reject") : Option.none<string>()
      })
      // What the check hands in is recorded and announced before the check waits.
      const handIn = Effect.sync(() => {
        handedIn++
        recorded = true
        signal.announce([key])
      })
      const until = (yield* Clock.currentTimeMillis) + 10_000
      const found = yield* signal.until(key, look, until, 5_000, handIn)
      assert.deepStrictEqual(found, Option.some("reject"))
      assert.strictEqual(handedIn, 1)
      assert.strictEqual(looks, 2, "the first look, then one when announced")
      assert.strictEqual(yield* Clock.currentTimeMillis, until - 10_000, "no wait for the next look")
      // Found at the first look: nothing handed in.
      const again = yield* signal.until(key, look, until, 5_000, handIn)
      assert.deepStrictEqual(again, Option.some("reject"))
      assert.strictEqual(handedIn, 1)
    })
  )
})
