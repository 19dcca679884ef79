/**
 * Batches worked on at once keep each reference's order (ReferenceOrder.ts): a batch holding a
 * reference of an earlier batch still at work waits for it, others run side by side; and end to end,
 * an item edited between two batches the entity takes at once is recorded as version 1 then 2, also
 * when the first batch is handed back (the API answered 503) while the second would be answered.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Connector, type SourceEvent } from "@warden/connector"
import { Sandbox } from "@warden/sandbox"
import { Deferred, Effect, Fiber, Layer, Schema, Stream } from "effect"
import { afterEach, expect, it as itAsync } from "vitest"
import * as ReferenceOrder from "../src/engine/ReferenceOrder.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { bodyOf, forward, listen } from "./support/LoopbackServer.ts"
import { query } from "./support/StateDb.ts"
import { sourceSettings } from "./support/TestPlatform.ts"

/** A batch that records when it starts and runs until `release` is completed. */
const held = (log: Array<string>, name: string) =>
  Effect.gen(function* () {
    const release = yield* Deferred.make<void>()
    const work = Effect.sync(() => log.push(`${name} start`)).pipe(
      Effect.andThen(Deferred.await(release)),
      Effect.andThen(Effect.sync(() => log.push(`${name} end`)))
    )
    return { release: Deferred.succeed(release, undefined), work }
  })

describe("ReferenceOrder", () => {
  it.effect("runs a batch holding an earlier batch's reference after it, and the others at once", () =>
    Effect.gen(function* () {
      const order = ReferenceOrder.make()
      const log: Array<string> = []
      const a = yield* held(log, "a")
      const b = yield* held(log, "b")
      const c = yield* held(log, "c")
      const fa = yield* Effect.forkChild(order.inOrder(["x", "y"], a.work))
      const fb = yield* Effect.forkChild(order.inOrder(["y"], b.work))
      const fc = yield* Effect.forkChild(order.inOrder(["z"], c.work))
      yield* Effect.yieldNow
      assert.deepStrictEqual(log, ["a start", "c start"])
      yield* c.release
      yield* Fiber.join(fc)
      assert.deepStrictEqual(log, ["a start", "c start", "c end"])
      yield* a.release
      yield* Fiber.join(fa)
      yield* Effect.yieldNow
      assert.deepStrictEqual(log.slice(3), ["a end", "b start"])
      yield* b.release
      yield* Fiber.join(fb)
    })
  )

  it.effect("lets the next batch go once an earlier one has failed or been interrupted", () =>
    Effect.gen(function* () {
      const order = ReferenceOrder.make()
      const log: Array<string> = []
      const failing = yield* held(log, "a")
      const fa = yield* Effect.forkChild(order.inOrder(["x"], Effect.andThen(failing.work, Effect.fail("boom"))))
      const interrupted = yield* held(log, "b")
      const fb = yield* Effect.forkChild(order.inOrder(["x"], interrupted.work))
      const next = yield* Effect.forkChild(
        order.inOrder(
          ["x"],
          Effect.sync(() => log.push("c"))
        )
      )
      yield* Effect.yieldNow
      yield* failing.release
      assert.strictEqual(yield* Effect.flip(Fiber.join(fa)), "boom")
      yield* Effect.yieldNow
      assert.deepStrictEqual(log, ["a start", "a end", "b start"])
      yield* Fiber.interrupt(fb)
      yield* Fiber.join(next)
      assert.deepStrictEqual(log.slice(3), ["c"])
      // nothing is left claimed: a later batch of the same reference starts at once
      yield* order.inOrder(
        ["x"],
        Effect.sync(() => log.push("d"))
      )
      assert.deepStrictEqual(log.slice(4), ["d"])
    })
  )
})

describe("ReferenceOrder.claim", () => {
  it.effect("orders by claim, whatever order the work starts in", () =>
    Effect.gen(function* () {
      const order = ReferenceOrder.make()
      const log: Array<string> = []
      const first = order.claim(["x", "y"])
      const second = order.claim(["y"])
      const other = order.claim(["z"])
      const fs = yield* Effect.forkChild(second.run(Effect.sync(() => log.push("second"))))
      yield* other.run(Effect.sync(() => log.push("other")))
      yield* Effect.yieldNow
      assert.deepStrictEqual(log, ["other"])
      yield* first.run(Effect.sync(() => log.push("first")))
      yield* Fiber.join(fs)
      assert.deepStrictEqual(log, ["other", "first", "second"])
    })
  )
})

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

const upsert = (reference: string, text: string, seq: number): SourceEvent.SourceEvent => ({
  kind: "upsert",
  reference,
  checkpoint: { seq },
  content: { type: "text", text }
})

/**
 * Runs the daemon on the API at `api` over one stream: 99 other items and the edited one's first text
 * fill a batch of 100; its second text is alone in the next. Answers the edited item's recorded
 * versions as [version, text], once all 101 versions are recorded.
 */
const editedVersions = async (api: string): Promise<Array<[number, string]>> => {
  const events = [
    ...Array.from({ length: 99 }, (_, i) => upsert(`other:${i}`, `Comment number ${i}`, i)),
    upsert("edited", "The first text of the edited comment", 99),
    upsert("edited", "The second text of the edited comment", 100)
  ]
  const connector = Connector.make({
    type: "scripted",
    configSchema: Schema.Struct({}),
    capabilities: { actions: [], duplicates: "possible", contentTypes: ["text"] },
    make: () => Effect.succeed({ events: () => Stream.concat(Stream.fromIterable(events), Stream.never) })
  })
  const stateFile = join(mkdtempSync(join(tmpdir(), "warden-order-")), "state.db")
  const daemon = await startDaemonInProcess({
    state: { _tag: "sqlite", filename: stateFile },
    // One HTTP attempt per call: a 503 hands the batch back at once.
    api: { apiKey: "sandbox-standard-key", baseUrls: { global: api }, retry: { maxAttempts: 1 } },
    sources: [{ settings: sourceSettings("scripted", "scripted"), connector, config: {} }],
    sinks: Layer.succeed(SinkList, []),
    sinkNames: [],
    pipeline: { batchSize: 100, batchesAtOnce: 4, pauseRetry: "1 second" }
  })
  closers.push(daemon.close)
  await waitFor(
    () => query(stateFile, "SELECT 1 FROM warden_items").length === 101,
    30_000,
    "101 item versions recorded"
  )
  return query<{ version: number; request: string }>(
    stateFile,
    "SELECT version, request FROM warden_items WHERE reference = 'edited' ORDER BY version"
  ).map((row) => [row.version, JSON.parse(row.request).text])
}

describe("batches the entity works on at once", () => {
  itAsync(
    "record an item edited between two of them as version 1, then 2",
    async () => {
      // The second batch (one call) would finish long before the first (100 calls) if it did not wait for it.
      const sandbox = await Sandbox.startPromise()
      closers.push(() => sandbox.close())
      expect(await editedVersions(sandbox.url)).toEqual([
        [1, "The first text of the edited comment"],
        [2, "The second text of the edited comment"]
      ])
    },
    60_000
  )

  itAsync(
    "record an edit in order when the batch of its first text is handed back and the next one's is answered",
    async () => {
      // The first batch's call for the edited item's first text fails (503): the batch is handed back
      // and sent again 500 ms later. The second batch, the edited item's second text, would be answered
      // meanwhile: recorded before the first text's resend, which would then be recorded as the newer
      // version, and the item moderated on text it no longer holds.
      const sandbox = await Sandbox.startPromise()
      closers.push(() => sandbox.close())
      // A front to the sandbox that refuses the first text's first call.
      let refused = 0
      const front = await listen(async (req, res) => {
        const body = await bodyOf(req)
        if (refused === 0 && body.includes("The first text")) {
          refused++
          res.writeHead(503, { "content-type": "application/json" })
          res.end(JSON.stringify({ error: { code: "SERVICE_UNAVAILABLE", message: "try again" } }))
          return
        }
        await forward(sandbox.url, req, body, res)
      })
      closers.push(front.close)
      const versions = await editedVersions(front.url)
      expect(refused).toBe(1)
      expect(versions).toEqual([
        [1, "The first text of the edited comment"],
        [2, "The second text of the edited comment"]
      ])
    },
    60_000
  )
})
