/**
 * How a source's reads become the batches it sends (engine/Pipeline.ts `batched`), on the TestClock: a
 * push source's read goes at once, as it came, cut at the batch size, with no time passing (a client
 * may be waiting on each item); a pull source's events wait for the batch to fill or its window to end.
 */
import { assert, describe, it } from "@effect/vitest"
import type { SourceEvent } from "@warden/connector"
import { Effect, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { batched } from "../src/engine/Pipeline.ts"

const item = (n: number): SourceEvent.Positioned => ({
  kind: "upsert",
  reference: `r-${n}`,
  content: { type: "text", text: `item ${n}` },
  checkpoint: { seq: n }
})

const read = (from: number, count: number) => {
  const events = Array.from({ length: count }, (_, i) => item(from + i))
  return events as [SourceEvent.Positioned, ...Array<SourceEvent.Positioned>]
}

/** Runs `reads` (offered one at a time) through `batched`, and answers the batches' sizes seen so far. */
const batchesOf = (how: Parameters<typeof batched>[0]) =>
  Effect.gen(function* () {
    const reads = yield* Queue.unbounded<ReturnType<typeof read>>()
    const seen: Array<number> = []
    yield* Stream.fromQueue(reads).pipe(
      batched(how),
      Stream.runForEach((batch) => Effect.sync(() => void seen.push(batch.length))),
      Effect.forkScoped
    )
    return { offer: (r: ReturnType<typeof read>) => Queue.offer(reads, r), seen }
  })

describe("a source's batches", () => {
  it.effect("a push source's read goes at once, as it came, cut at the batch size", () =>
    Effect.gen(function* () {
      const { offer, seen } = yield* batchesOf({ push: true, size: 100, maxWait: "50 millis" })
      yield* offer(read(1, 1))
      yield* Effect.yieldNow
      assert.deepStrictEqual(seen, [1], "one item, sent with no time passing")
      yield* offer(read(2, 250))
      yield* Effect.yieldNow
      assert.deepStrictEqual(seen, [1, 100, 100, 50])
    }).pipe(Effect.scoped)
  )

  it.effect("a pull source's events wait for the batch to fill or its window to end", () =>
    Effect.gen(function* () {
      const { offer, seen } = yield* batchesOf({ push: false, size: 100, maxWait: "50 millis" })
      yield* offer(read(1, 1))
      yield* Effect.yieldNow
      assert.deepStrictEqual(seen, [], "held for the window")
      yield* TestClock.adjust("50 millis")
      assert.deepStrictEqual(seen, [1])
      yield* offer(read(2, 150))
      yield* Effect.yieldNow
      assert.deepStrictEqual(seen, [1, 100], "a full batch goes at once")
      yield* TestClock.adjust("50 millis")
      assert.deepStrictEqual(seen, [1, 100, 50])
    }).pipe(Effect.scoped)
  )
})
