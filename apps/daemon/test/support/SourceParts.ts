/**
 * What the parts of a running source (engine/ApiHealth, BatchDispatch, SourceSupervisor, ...) need in
 * their unit tests: the in-memory source status, the state store's health on SQLite's terms, and a
 * fork whose work the test drives with the TestClock.
 */
import { Clock, type Duration, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { SourceStatus } from "../../src/engine/SourceStatus.ts"
import * as StateHealth from "../../src/state/StateHealth.ts"

/** SourceStatus (in memory) and StateHealth (of `state.sqlite`, no store behind it). */
export const partsLayer = Layer.mergeAll(
  SourceStatus.layer,
  Layer.succeed(StateHealth.StateHealth, StateHealth.make("state.sqlite"))
)

/** The state of source `id`, as `/readyz` would show it. */
export const stateOf = (id: string) =>
  Effect.gen(function* () {
    const status = yield* SourceStatus
    return (yield* status.all).get(id)
  })

/** A recorder of the TestClock times at which something happened. */
export const times = () => {
  const at: Array<number> = []
  return {
    at,
    mark: Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => void at.push(now)))
  }
}

/** Forks `effect` and lets it run up to its first wait on the clock. */
export const started = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tap(Effect.forkChild(effect), () => Effect.yieldNow)

/**
 * Moves the TestClock `step` at a time until `fiber` is done (at most `limit` steps), and answers its
 * result: for work whose waits are jittered.
 */
export const joinDriven = <A, E>(fiber: Fiber.Fiber<A, E>, step: Duration.Input = "50 millis", limit = 10_000) =>
  Effect.gen(function* () {
    for (let i = 0; i < limit && fiber.pollUnsafe() === undefined; i++) yield* TestClock.adjust(step)
    return yield* Fiber.join(fiber)
  })
