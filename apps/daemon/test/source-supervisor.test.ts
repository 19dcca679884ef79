/**
 * The supervisor of a source on the TestClock (engine/SourceSupervisor.ts): a failed start is started
 * again after 1 s doubling (±20%), back to 1 s once a checkpoint is committed; a non-retryable
 * ConnectorError pauses the source until its checkpoint changes, looked at every pause retry.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConnectorError } from "@warden/connector"
import { type Duration, Effect, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import * as SourceSupervisor from "../src/engine/SourceSupervisor.ts"
import { partsLayer, started, stateOf, times } from "./support/SourceParts.ts"

const retryable = new ConnectorError.ConnectorError({
  source: "src",
  reason: "Unavailable",
  retryable: true,
  message: "feed down"
})

/** A checkpoint store of one source whose checkpoint the test sets. */
const checkpointOf = () => {
  const stored = { text: Option.some('{"seq":1}') as Option.Option<string>, reads: 0 }
  return {
    stored,
    checkpoints: {
      getCheckpoint: () =>
        Effect.sync(() => {
          stored.reads++
          return stored.text
        })
    }
  }
}

/** Moves the clock `millis` at a time, `n` times. */
const steps = (n: number, millis: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < n; i++) yield* TestClock.adjust(millis)
  })

/**
 * A supervisor of source `src` running, forked, a start that marks its time in `starts` and goes on as
 * `then` says (given the supervisor and the start's number, from 1).
 */
const supervising = (
  pauseRetry: Duration.Input,
  then: (supervisor: SourceSupervisor.SourceSupervisor, start: number) => Effect.Effect<unknown, unknown>
) =>
  Effect.gen(function* () {
    const { stored, checkpoints } = checkpointOf()
    const supervisor = yield* SourceSupervisor.make({ id: "src", pauseRetry, checkpoints })
    const starts = times()
    const fiber = yield* started(
      supervisor.run(
        Effect.andThen(
          starts.mark,
          Effect.suspend(() => then(supervisor, starts.at.length))
        )
      )
    )
    return { fiber, starts: starts.at, stored }
  })

describe("SourceSupervisor", () => {
  it.effect("restarts a failed start after 1 s, then 2 s (±20%), and from 1 s again after a commit", () =>
    Effect.gen(function* () {
      // The third start commits before it fails.
      const { fiber, starts } = yield* supervising("30 seconds", (supervisor, start) =>
        Effect.andThen(start === 3 ? supervisor.committed : Effect.void, Effect.fail(retryable))
      )
      const restarting = yield* stateOf("src")
      assert.strictEqual(restarting?.state, "restarting")
      assert.strictEqual(restarting?.attempt, 1)
      yield* steps(700, 10) // 7 s
      yield* Fiber.interrupt(fiber)
      const [first, second, third, fourth] = starts
      assert.strictEqual(first, 0)
      assert.isAtLeast(second! - first!, 800)
      assert.isAtMost(second! - first!, 1200)
      assert.isAtLeast(third! - second!, 1600)
      assert.isAtMost(third! - second!, 2400)
      assert.isAtLeast(fourth! - third!, 800, "the commit started the backoff again")
      assert.isAtMost(fourth! - third!, 1200)
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a start that ends (a finished source's never does) is started again at once", () =>
    Effect.gen(function* () {
      const { fiber, starts } = yield* supervising("30 seconds", (_, start) => (start < 3 ? Effect.void : Effect.never))
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(starts, [0, 0, 0])
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a non-retryable error pauses the source until its checkpoint changes", () =>
    Effect.gen(function* () {
      const invalid = new ConnectorError.ConnectorError({
        source: "src",
        reason: "InvalidCheckpoint",
        retryable: false,
        message: "the stored checkpoint is not JSON"
      })
      const { fiber, starts, stored } = yield* supervising("10 seconds", () => Effect.fail(invalid))
      const paused = yield* stateOf("src")
      assert.strictEqual(paused?.state, "paused")
      assert.strictEqual(paused?.by, "source")
      assert.include(paused?.reason, "warden source checkpoint reset --source src")
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(starts, [0], "not started again while the checkpoint stays")
      assert.strictEqual(stored.reads, 1 + 360, "the checkpoint looked at every pause retry")
      stored.text = Option.none() // `warden source checkpoint reset`
      yield* TestClock.adjust("10 seconds")
      assert.deepStrictEqual(starts, [0, 3_610_000])
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("an interrupted start ends the supervisor", () =>
    Effect.gen(function* () {
      const { checkpoints } = checkpointOf()
      const supervisor = yield* SourceSupervisor.make({ id: "src", pauseRetry: "30 seconds", checkpoints })
      const exit = yield* Effect.exit(supervisor.run(Effect.interrupt))
      assert.isTrue(exit._tag === "Failure")
      assert.strictEqual(yield* stateOf("src"), undefined, "no restart recorded")
    }).pipe(Effect.provide(partsLayer))
  )
})
