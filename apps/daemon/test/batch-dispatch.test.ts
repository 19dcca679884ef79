/**
 * Sending a source's batches, on the TestClock: each reference to its one partition, the start of the
 * sends in flight kept for the purge (engine/BatchSender.ts); a batch handed back sent again after
 * 500 ms doubling (±20%), a batch the API refuses after the pause retry, and past the failure mode's
 * delay recorded degraded instead of held (engine/BatchDispatch.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { type Checkpoint, SourceEvent } from "@warden/connector"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as ApiHealth from "../src/engine/ApiHealth.ts"
import * as BatchDispatch from "../src/engine/BatchDispatch.ts"
import * as BatchEvent from "../src/engine/BatchEvent.ts"
import type { Handling } from "../src/engine/Handling.ts"
import * as BatchSender from "../src/engine/BatchSender.ts"
import { ApiUnavailable, SourcePaused } from "../src/engine/EngineError.ts"
import { joinDriven, partsLayer, started, stateOf, times } from "./support/SourceParts.ts"

const upsert = (reference: string, seq: number) =>
  SourceEvent.upsertText({ reference, checkpoint: { seq }, text: `comment ${reference}` })

const unavailable = new ApiUnavailable({ source: "src", code: "503", detail: "down for maintenance" })
const refused = new SourcePaused({ source: "src", code: "403", detail: "key revoked" })

/**
 * A sender whose sends fail with `outcomes` in turn (`undefined`: acknowledged; past the list, each
 * send fails with `otherwise`, or is acknowledged without it); `sent` records when and how each went.
 */
const scripted = (
  outcomes: ReadonlyArray<ApiUnavailable | SourcePaused | undefined>,
  otherwise?: (how: Handling) => ApiUnavailable | undefined
) => {
  const clock = times()
  const hows: Array<Handling> = []
  let next = 0
  const sender: BatchSender.BatchSender<ApiUnavailable | SourcePaused> = {
    send: (_, how) =>
      Effect.gen(function* () {
        yield* clock.mark
        hows.push(how)
        const outcome = next < outcomes.length ? outcomes[next++] : otherwise?.(how)
        if (outcome !== undefined) return yield* Effect.fail(outcome)
      }),
    oldestInFlight: Effect.succeed(0)
  }
  return { sender, at: clock.at, hows }
}

const dispatchOf = (
  sender: BatchSender.BatchSender<ApiUnavailable | SourcePaused>,
  failure?: { readonly mode: "hold" | "allow" | "reject"; readonly afterMillis: number }
) =>
  Effect.gen(function* () {
    const api = yield* ApiHealth.make(failure)
    const batches = yield* BatchDispatch.make({ id: "src", sender, api, pauseRetry: "30 seconds" })
    return { api, batches }
  })

describe("BatchSender", () => {
  it.effect("sends each reference's events to its one partition, in order", () =>
    Effect.gen(function* () {
      const messages: Array<{ entityId: string; references: ReadonlyArray<string> }> = []
      const sender = BatchSender.make("src", 4, (entityId, message) =>
        Effect.sync(() =>
          messages.push({ entityId, references: BatchEvent.fromPayload(message.events).map((e) => e.reference) })
        )
      )
      const references = ["a", "b", "c", "d", "e", "a", "b"]
      yield* sender.send(
        references.map((r, i) => BatchEvent.fromSourceEvent(upsert(r, i))),
        {}
      )
      for (const reference of new Set(references)) {
        const holding = messages.filter((m) => m.references.includes(reference))
        assert.deepStrictEqual(
          holding.map((m) => m.entityId),
          [`src/${BatchSender.partitionOf(reference, 4)}`]
        )
      }
      assert.deepStrictEqual(messages.flatMap((m) => m.references).sort(), [...references].sort())
      const ofA = messages.find((m) => m.references.includes("a"))!
      assert.deepStrictEqual(
        ofA.references.filter((r) => r === "a"),
        ["a", "a"]
      )
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("keeps the start of a send waiting for its replies, for the purge", () =>
    Effect.gen(function* () {
      const reply = yield* Deferred.make<void>()
      const sender = BatchSender.make("src", 1, () => Deferred.await(reply))
      yield* TestClock.adjust("1 second")
      const sending = yield* started(sender.send([BatchEvent.fromSourceEvent(upsert("a", 1))], {}))
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(yield* sender.oldestInFlight, 1_000, "the send in flight since 1 s")
      yield* Deferred.succeed(reply, undefined)
      yield* Fiber.join(sending)
      assert.strictEqual(yield* sender.oldestInFlight, 6_000, "none in flight: now")
    })
  )
})

describe("BatchDispatch", () => {
  it.effect("a batch handed back is sent again after 500 ms, then 1 s (±20%), until acknowledged", () =>
    Effect.gen(function* () {
      const { sender, at } = scripted([unavailable, unavailable, undefined])
      const { api, batches } = yield* dispatchOf(sender)
      const fiber = yield* started(batches.dispatch([upsert("a", 1), upsert("b", 2)]))
      assert.strictEqual((yield* stateOf("src"))?.state, "api-unavailable")
      const checkpoint: Checkpoint.Checkpoint | undefined = yield* joinDriven(fiber, "10 millis")
      assert.deepStrictEqual(checkpoint, { seq: 2 }, "the batch's last checkpoint, to commit")
      assert.strictEqual(at.length, 3)
      assert.isAtLeast(at[1]! - at[0]!, 400)
      assert.isAtMost(at[1]! - at[0]!, 600)
      assert.isAtLeast(at[2]! - at[1]!, 800)
      assert.isAtMost(at[2]! - at[1]!, 1200)
      assert.strictEqual((yield* stateOf("src"))?.state, "running")
      assert.isFalse(yield* api.answered, "the outage ended with the acknowledgement")
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a batch the API refuses pauses the source and is sent again after the pause retry", () =>
    Effect.gen(function* () {
      const { sender, at } = scripted([refused, undefined])
      const { batches } = yield* dispatchOf(sender)
      const fiber = yield* started(batches.dispatch([upsert("a", 1)]))
      const paused = yield* stateOf("src")
      assert.strictEqual(paused?.state, "paused")
      assert.strictEqual(paused?.by, "api")
      assert.strictEqual(paused?.reason, "403 (key revoked)")
      yield* TestClock.adjust("29999 millis")
      assert.strictEqual(at.length, 1, "not before the pause retry")
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(at, [0, 30_000])
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("past the failure mode's delay the batch is recorded degraded, not held", () =>
    Effect.gen(function* () {
      // The API fails every real try; a degraded send (recorded without it) is acknowledged.
      const { sender, at, hows } = scripted([], (how) => (how.degraded === undefined ? unavailable : undefined))
      const { api, batches } = yield* dispatchOf(sender, { mode: "allow", afterMillis: 2_000 })
      yield* joinDriven(yield* started(batches.dispatch([upsert("a", 1)])), "10 millis")
      const last = hows.length - 1
      assert.strictEqual(hows[last]?.degraded, "allow")
      assert.isAtLeast(at[last]!, 2_000, "not before the delay")
      assert.isTrue(
        hows.slice(0, last).every((how) => how.degraded === undefined),
        "held (real tries) until then"
      )
      assert.strictEqual((yield* stateOf("src"))?.state, "api-unavailable", "a degraded batch is no answer")
      assert.isTrue(yield* api.answered, "the outage goes on")
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a chunk of progress events only is not sent, its checkpoint is committed", () =>
    Effect.gen(function* () {
      const { sender, at } = scripted([])
      const { batches } = yield* dispatchOf(sender)
      const checkpoint = yield* batches.dispatch([
        { kind: "progress", checkpoint: { seq: 1 } },
        { kind: "progress", checkpoint: { seq: 2 } }
      ])
      assert.deepStrictEqual(checkpoint, { seq: 2 })
      assert.strictEqual(at.length, 0)
    }).pipe(Effect.provide(partsLayer))
  )
})
