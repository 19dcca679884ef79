/**
 * The wake-ups of the checks waiting on an item's decision (state/RecordedSignal.ts), on the TestClock:
 * a wait looks every `lookEveryMillis` and gives up at its deadline (Clock milliseconds) with nothing
 * found; an announced record it accepts is its answer with no look after it, one it does not accept (an
 * edit's) makes it look again; a record nobody waits for is never made; what runs after its first miss
 * runs once, and an announcement made while it runs is not lost.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import * as RecordedSignal from "../src/state/RecordedSignal.ts"

const key = RecordedSignal.keyOf("forum", "post-1")

/** A record is a content hash here; a wait accepts the one it was given. */
const holding = (hash: string) => (record: string) => (record === hash ? Option.some(`decided ${hash}`) : Option.none())

/** A look that counts itself and finds `found()`. */
const counted = (found: () => Option.Option<string>) => {
  const counter = { looks: 0 }
  const look = Effect.sync(() => {
    counter.looks++
    return found()
  })
  return { counter, look }
}

describe("a recorded signal", () => {
  it.effect("looks every lookEveryMillis until its deadline, then answers none", () =>
    Effect.gen(function* () {
      const signal = RecordedSignal.make<string>()
      const { counter, look } = counted(() => Option.none())
      const untilMillis = (yield* Clock.currentTimeMillis) + 1_000
      const fiber = yield* Effect.forkChild(
        signal.until(key, { look, accept: holding("h1"), untilMillis, lookEveryMillis: 300 })
      )
      yield* Effect.yieldNow
      assert.strictEqual(counter.looks, 1)
      yield* TestClock.adjust(300)
      assert.strictEqual(counter.looks, 2)
      yield* TestClock.adjust(700)
      const found = yield* Fiber.join(fiber)
      assert.isTrue(Option.isNone(found))
      // 0, 300, 600, 900 and the last look at the deadline (1000).
      assert.strictEqual(counter.looks, 5)
    })
  )

  it.effect("answers the announced record it accepts at once, with no look after it", () =>
    Effect.gen(function* () {
      const signal = RecordedSignal.make<string>()
      const { counter, look } = counted(() => Option.none())
      const untilMillis = (yield* Clock.currentTimeMillis) + 10_000
      const fiber = yield* Effect.forkChild(
        signal.until(key, { look, accept: holding("h1"), untilMillis, lookEveryMillis: 5_000 })
      )
      yield* Effect.yieldNow
      signal.announce([
        [RecordedSignal.keyOf("forum", "other"), () => "h9"],
        [key, () => "h1"]
      ])
      const found = yield* Fiber.join(fiber)
      assert.deepStrictEqual(found, Option.some("decided h1"))
      assert.strictEqual(counter.looks, 1, "only the first look: the record came with the wake-up")
      assert.strictEqual(yield* Clock.currentTimeMillis, untilMillis - 10_000)
    })
  )

  it.effect("looks again when the announced record holds other content (an edit's)", () =>
    Effect.gen(function* () {
      const signal = RecordedSignal.make<string>()
      let stored = Option.none<string>()
      const { counter, look } = counted(() => stored)
      const untilMillis = (yield* Clock.currentTimeMillis) + 10_000
      const fiber = yield* Effect.forkChild(
        signal.until(key, { look, accept: holding("h1"), untilMillis, lookEveryMillis: 5_000 })
      )
      yield* Effect.yieldNow
      stored = Option.some("found by the look")
      signal.announce([[key, () => "h2"]])
      const found = yield* Fiber.join(fiber)
      assert.deepStrictEqual(found, Option.some("found by the look"))
      assert.strictEqual(counter.looks, 2)
    })
  )

  it.effect("makes no record for an item nobody waits on", () =>
    Effect.gen(function* () {
      const signal = RecordedSignal.make<string>()
      let made = 0
      signal.announce([
        [
          key,
          () => {
            made++
            return "h1"
          }
        ]
      ])
      assert.strictEqual(made, 0)
    })
  )

  it.effect("runs onFirstMiss once, after a first look that found nothing; its announcement is not lost", () =>
    Effect.gen(function* () {
      const signal = RecordedSignal.make<string>()
      let stored = Option.none<string>()
      const { counter, look } = counted(() => stored)
      let handedIn = 0
      // What the check hands in is recorded and announced before the check waits.
      const onFirstMiss = Effect.sync(() => {
        handedIn++
        stored = Option.some("decided h1")
        signal.announce([[key, () => "h1"]])
      })
      const untilMillis = (yield* Clock.currentTimeMillis) + 10_000
      const wait = { look, accept: holding("h1"), untilMillis, lookEveryMillis: 5_000, onFirstMiss }
      const found = yield* signal.until(key, wait)
      assert.deepStrictEqual(found, Option.some("decided h1"))
      assert.strictEqual(handedIn, 1)
      assert.strictEqual(counter.looks, 1, "the first look only: the announcement answered")
      assert.strictEqual(yield* Clock.currentTimeMillis, untilMillis - 10_000, "no wait for the next look")
      // Found at the first look: nothing handed in.
      const again = yield* signal.until(key, wait)
      assert.deepStrictEqual(again, Option.some("decided h1"))
      assert.strictEqual(handedIn, 1)
      assert.strictEqual(counter.looks, 2)
    })
  )
})
