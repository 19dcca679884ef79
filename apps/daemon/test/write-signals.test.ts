/**
 * The doorbells that wake the queue pollers (state/WriteSignals.ts), on the TestClock: a wait ends at a
 * ring or after its time, a ring while the poller was busy ends its next wait at once (and only that
 * one), and a poller's pace looks again at the soonest retry it scheduled. How often the pollers look
 * unasked follows the backend: often where other runners write the queues (PostgreSQL), rarely where
 * this process is their only writer (SQLite).
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { sqlLayer } from "../src/Daemon.ts"
import * as WriteSignals from "../src/state/WriteSignals.ts"
import { stateBackends } from "./support/StateBackends.ts"

/** Forks `wait` and answers how many milliseconds of TestClock time it took, once joined. */
const timed = (wait: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const start = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forkChild(Effect.andThen(wait, Clock.currentTimeMillis))
    yield* Effect.yieldNow
    return Effect.map(Fiber.join(fiber), (end) => end - start)
  })

describe("a doorbell", () => {
  it.effect("ends a wait when it rings, and otherwise after the wait's time", () =>
    Effect.gen(function* () {
      const bell = WriteSignals.make()
      const listener = bell.listen()
      const rung = yield* timed(listener.wait(10_000))
      yield* TestClock.adjust(3_000)
      bell.ring()
      assert.strictEqual(yield* rung, 3_000)
      const quiet = yield* timed(listener.wait(10_000))
      yield* TestClock.adjust(10_000)
      assert.strictEqual(yield* quiet, 10_000)
    })
  )

  it.effect("ends the next wait at once after a ring while nobody waited, for every listener, once", () =>
    Effect.gen(function* () {
      const bell = WriteSignals.make()
      const a = bell.listen()
      const b = bell.listen()
      bell.ring()
      bell.ring()
      assert.strictEqual(yield* yield* timed(a.wait(10_000)), 0)
      assert.strictEqual(yield* yield* timed(b.wait(10_000)), 0)
      const again = yield* timed(a.wait(5_000))
      yield* TestClock.adjust(5_000)
      assert.strictEqual(yield* again, 5_000)
      // a listener made after a ring has heard it
      const late = bell.listen()
      const fresh = yield* timed(late.wait(2_000))
      yield* TestClock.adjust(2_000)
      assert.strictEqual(yield* fresh, 2_000)
    })
  )
})

describe("a poller's pace", () => {
  it.effect("looks again at the soonest retry it scheduled, else after its idle time", () =>
    Effect.gen(function* () {
      const pace = WriteSignals.pace(WriteSignals.make(), 1_000)
      const now = yield* Clock.currentTimeMillis
      pace.dueAt(now + 700)
      pace.dueAt(now + 300)
      const first = yield* timed(pace.nextLook)
      yield* TestClock.adjust(300)
      assert.strictEqual(yield* first, 300)
      const second = yield* timed(pace.nextLook)
      yield* TestClock.adjust(400)
      assert.strictEqual(yield* second, 400)
      const idle = yield* timed(pace.nextLook)
      yield* TestClock.adjust(1_000)
      assert.strictEqual(yield* idle, 1_000)
    })
  )
})

describe("the unasked look", () => {
  const expected: Record<string, number> = { sqlite: 10_000, postgres: 1_000 }
  for (const [name, fresh] of stateBackends()) {
    it.live(`on ${name}: every ${expected[name]} ms`, () =>
      Effect.gen(function* () {
        const location = yield* Effect.promise(fresh)
        const signals = yield* Effect.provide(
          Effect.gen(function* () {
            return yield* WriteSignals.WriteSignals
          }),
          WriteSignals.WriteSignals.layer.pipe(Layer.provide(sqlLayer(location)))
        )
        assert.strictEqual(signals.unannouncedLookMillis, expected[name])
      })
    )
  }
})
