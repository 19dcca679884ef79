/**
 * The re-analysis sweep's loop on the TestClock (engine/ReanalysisSweep.ts; reanalysis-sweep.test.ts
 * runs it on the real daemon): a read that is not a full batch waits 5 s, a full one reads again at
 * once unless it gave the same versions as the last; a sweep that goes through ends the source's outage.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as ApiHealth from "../src/engine/ApiHealth.ts"
import type { Handling } from "../src/engine/Handling.ts"
import { ApiUnavailable } from "../src/engine/EngineError.ts"
import * as ReanalysisSweep from "../src/engine/ReanalysisSweep.ts"
import { SourceStatus } from "../src/engine/SourceStatus.ts"
import type { UnanalysedItem } from "../src/state/ItemStore.ts"
import { partsLayer, started, stateOf } from "./support/SourceParts.ts"

const row = (reference: string, version = 1): UnanalysedItem => ({
  reference,
  version,
  event: JSON.stringify({ kind: "upsert", reference, content: { type: "text", text: `comment ${reference}` } })
})

/**
 * A sweep of batches of 2 over `pages` (the rows each read answers, the last one for ever after), its
 * sends failing while `down`.
 */
const sweepOver = (pages: ReadonlyArray<ReadonlyArray<UnanalysedItem>>) =>
  Effect.gen(function* () {
    const seen = { reads: 0, sent: [] as Array<{ references: ReadonlyArray<string>; how: Handling }>, down: false }
    const api = yield* ApiHealth.make({ mode: "allow", afterMillis: 0 })
    const sweep = yield* ReanalysisSweep.make({
      id: "src",
      kinds: ["text"],
      batchSize: 2,
      api,
      items: {
        unanalysed: () => Effect.sync(() => pages[Math.min(seen.reads++, pages.length - 1)]!)
      },
      sender: {
        send: (events, how) =>
          seen.down
            ? Effect.fail(new ApiUnavailable({ source: "src", code: "503", detail: "down" }))
            : Effect.sync(() => void seen.sent.push({ references: events.map((e) => e.reference), how }))
      }
    })
    return { seen, sweep, api }
  })

describe("ReanalysisSweep", () => {
  it.effect("waits 5 s after a read that is not a full batch", () =>
    Effect.gen(function* () {
      const { seen, sweep } = yield* sweepOver([[], [row("a")], []])
      const fiber = yield* started(sweep.run)
      assert.strictEqual(seen.reads, 1)
      yield* TestClock.adjust("4999 millis")
      assert.strictEqual(seen.reads, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(seen.reads, 2)
      assert.deepStrictEqual(seen.sent, [{ references: ["a"], how: { reanalysis: true } }])
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(seen.reads, 3)
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("reads again at once after a full batch, but not after the same versions again", () =>
    Effect.gen(function* () {
      const full = [row("a"), row("b")]
      const { seen, sweep } = yield* sweepOver([full, [row("c"), row("d")], [row("c"), row("d")], []])
      assert.isTrue(yield* sweep.once, "a full batch: probably more")
      assert.isTrue(yield* sweep.once, "another full batch, other versions")
      assert.isFalse(yield* sweep.once, "the same versions again: they did not change, wait")
      assert.strictEqual(seen.sent.length, 3)
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a sweep that goes through ends the source's outage; one that fails waits", () =>
    Effect.gen(function* () {
      const { seen, sweep, api } = yield* sweepOver([[row("a"), row("b")]])
      const status = yield* SourceStatus
      yield* api.unavailable
      yield* status.set("src", { state: "api-unavailable", reason: "503 (down)" })
      seen.down = true
      assert.isFalse(yield* sweep.once, "a failed send: wait before the next read")
      assert.strictEqual((yield* stateOf("src"))?.state, "api-unavailable")
      seen.down = false
      yield* sweep.once
      assert.strictEqual((yield* stateOf("src"))?.state, "running")
      assert.isFalse(yield* api.answered, "the outage is over")
    }).pipe(Effect.provide(partsLayer))
  )
})
