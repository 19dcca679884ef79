/**
 * The outbox workers' one loop (engine/OutboxDrainer.ts) on the TestClock, over a queue kept in memory:
 * due rows are delivered at once and a row due later when its time comes; a failed row is retried with
 * the backoff (500 ms, 1 s, 2 s) and not looked at in between; a failing look is tried again a second
 * later, never at once; a write to the queue wakes an idle drainer before its unasked look; an outcome
 * the store refused is written before the next look; interrupting the drainer ends it. The workers on it
 * are in sinks.test.ts, sink-outage.test.ts and action-executor.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Duration, Effect, Exit, Fiber, Layer, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import * as OutboxDrainer from "../src/engine/OutboxDrainer.ts"
import * as RecordedSignal from "../src/state/RecordedSignal.ts"
import * as StateHealth from "../src/state/StateHealth.ts"
import * as WriteSignals from "../src/state/WriteSignals.ts"
import { eventually } from "./support/TestTime.ts"

/** How often the drainer looks unasked in these tests. */
const UNASKED_MILLIS = 10_000

/** A row of the in-memory queue: due at `dueAt` (TestClock milliseconds), failed `attempts` times. */
interface Row {
  readonly id: string
  dueAt: number
  attempts: number
  done: boolean
}

/** The state store's health and the doorbells, as the daemon builds them, on no database. */
const layer = (doorbells: WriteSignals.Queues) =>
  Layer.mergeAll(
    Layer.succeed(StateHealth.StateHealth)(StateHealth.make("state.sqlite")),
    Layer.succeed(WriteSignals.WriteSignals)(doorbells)
  )

const newDoorbells = (): WriteSignals.Queues => ({
  outbox: WriteSignals.make(),
  actions: WriteSignals.make(),
  recorded: RecordedSignal.make(),
  intake: WriteSignals.make(),
  unannouncedLookMillis: UNASKED_MILLIS
})

const backoff = { initial: Duration.millis(500), max: Duration.minutes(1) }

/** A drainer of `queue` named `name`, whose queue holds no retry yet. */
const drainerOf = (queue: "outbox" | "actions", name: string, nextRetryAt = Option.none<number>()) =>
  OutboxDrainer.make({
    queue,
    nextRetryAt: Effect.succeed(nextRetryAt),
    operation: `${queue} ${name}`,
    retryBackoff: backoff,
    stepFailed: "test drainer step failed",
    annotations: { name }
  })

/**
 * A drainer of `rows` running in the background, delivering each due row with `deliver` (false: it
 * failed) and noting every delivery with its TestClock time; `nextRetryAt` is what the queue says of
 * its soonest retry.
 */
const draining = (rows: Array<Row>, deliver: (row: Row) => boolean, nextRetryAt: Option.Option<number>) =>
  Effect.gen(function* () {
    const deliveries: Array<{ readonly id: string; readonly at: number }> = []
    const drainer = yield* drainerOf("outbox", "test", nextRetryAt)
    const step = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const due = rows.filter((row) => !row.done && row.dueAt <= now)
      for (const row of due) {
        deliveries.push({ id: row.id, at: now })
        if (deliver(row)) yield* drainer.record(Effect.sync(() => (row.done = true)))
        else row.dueAt = drainer.retryAt(now, ++row.attempts)
      }
      return due.length > 0
    })
    const fiber = yield* Effect.forkChild(drainer.run(step))
    return { deliveries, fiber, drainer }
  })

describe("OutboxDrainer", () => {
  it.effect("delivers the due rows at once and a row due later when its time comes", () => {
    const doorbells = newDoorbells()
    return Effect.gen(function* () {
      const rows: Array<Row> = [
        { id: "a", dueAt: 0, attempts: 0, done: false },
        { id: "b", dueAt: 0, attempts: 0, done: false },
        { id: "c", dueAt: 5_000, attempts: 0, done: false }
      ]
      const { deliveries } = yield* draining(rows, () => true, Option.some(5_000))
      yield* eventually(
        Effect.sync(() => deliveries.length === 2),
        "the two due rows"
      )
      yield* TestClock.adjust(4_999)
      yield* Effect.sleep(0)
      assert.strictEqual(deliveries.length, 2, "the later row is not looked at before it is due")
      yield* TestClock.adjust(1)
      yield* eventually(
        Effect.sync(() => deliveries.length === 3),
        "the row due at 5 s"
      )
      assert.deepStrictEqual(deliveries, [
        { id: "a", at: 0 },
        { id: "b", at: 0 },
        { id: "c", at: 5_000 }
      ])
      assert.isTrue(rows.every((row) => row.done))
    }).pipe(Effect.provide(layer(doorbells)))
  })

  it.effect("retries a failed row with the backoff, 500 ms then 1 s then 2 s, and looks at nothing in between", () =>
    Effect.gen(function* () {
      const rows: Array<Row> = [{ id: "a", dueAt: 0, attempts: 0, done: false }]
      const { deliveries } = yield* draining(rows, (row) => row.attempts >= 3, Option.none())
      yield* eventually(
        Effect.sync(() => deliveries.length === 1),
        "the first try"
      )
      for (const [wait, tries] of [
        [500, 2],
        [1_000, 3],
        [2_000, 4]
      ] as const) {
        yield* TestClock.adjust(wait - 1)
        yield* Effect.sleep(0)
        assert.strictEqual(deliveries.length, tries - 1, `no try before its backoff of ${wait} ms`)
        yield* TestClock.adjust(1)
        yield* eventually(
          Effect.sync(() => deliveries.length === tries),
          `try ${tries}`
        )
      }
      assert.deepStrictEqual(
        deliveries.map((d) => d.at),
        [0, 500, 1_500, 3_500]
      )
      assert.isTrue(rows[0]!.done)
      assert.strictEqual(OutboxDrainer.retryDelayMillis(backoff, 20), 60_000, "capped at the backoff's max")
      assert.strictEqual(OutboxDrainer.retryDelayMillis(backoff, 1, 7_000), 7_000, "a longer retry-after wins")
    }).pipe(Effect.provide(layer(newDoorbells())))
  )

  it.effect("tries a failing look again a second later, never at once", () =>
    Effect.gen(function* () {
      const drainer = yield* drainerOf("actions", "failing")
      const looks = yield* Ref.make(0)
      yield* Effect.forkChild(
        drainer.run(
          Effect.andThen(
            Ref.update(looks, (n) => n + 1),
            Effect.fail("no query")
          )
        )
      )
      yield* eventually(
        Effect.map(Ref.get(looks), (n) => n === 1),
        "the first look"
      )
      // Real time passes while the TestClock stands: a loop that did not wait would look again meanwhile.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      assert.strictEqual(yield* Ref.get(looks), 1)
      yield* TestClock.adjust(OutboxDrainer.STEP_FAILURE_PAUSE_MILLIS - 1)
      assert.strictEqual(yield* Ref.get(looks), 1)
      yield* TestClock.adjust(1)
      yield* eventually(
        Effect.map(Ref.get(looks), (n) => n === 2),
        "the look a second later"
      )
    }).pipe(Effect.provide(layer(newDoorbells())))
  )

  it.effect("wakes on a write to its queue before its unasked look, and ends when interrupted", () => {
    const doorbells = newDoorbells()
    return Effect.gen(function* () {
      const rows: Array<Row> = []
      const { deliveries, fiber } = yield* draining(rows, () => true, Option.none())
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      rows.push({ id: "new", dueAt: 0, attempts: 0, done: false })
      doorbells.outbox.ring()
      yield* eventually(
        Effect.sync(() => deliveries.length === 1),
        "the row written after the drainer went idle"
      )
      assert.deepStrictEqual(deliveries, [{ id: "new", at: 0 }], "delivered with no time passing")
      yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
      rows.push({ id: "after", dueAt: 0, attempts: 0, done: false })
      doorbells.outbox.ring()
      yield* TestClock.adjust(UNASKED_MILLIS)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      assert.strictEqual(deliveries.length, 1, "nothing delivered once interrupted")
    }).pipe(Effect.provide(layer(doorbells)))
  })

  it.effect("writes an outcome the store refused before its next look", () =>
    Effect.gen(function* () {
      const drainer = yield* drainerOf("outbox", "refused")
      const events: Array<string> = []
      let writes = 0
      const write = Effect.suspend(() => {
        writes++
        events.push(`write ${writes}`)
        return writes === 1 ? Effect.fail("refused") : Effect.void
      })
      const refused = yield* Effect.exit(drainer.record(write))
      assert.isTrue(Exit.isFailure(refused), "the refusal fails the record")
      assert.strictEqual(drainer.unrecorded.size(), 1)
      yield* Effect.forkChild(
        drainer.run(
          Effect.sync(() => {
            events.push("look")
            return false
          })
        )
      )
      yield* eventually(
        Effect.sync(() => events.includes("look")),
        "the first look"
      )
      assert.deepStrictEqual(events, ["write 1", "write 2", "look"])
      assert.strictEqual(drainer.unrecorded.size(), 0)
    }).pipe(Effect.provide(layer(newDoorbells())))
  )
})
