/**
 * The re-analysis sweep: items recorded without a verdict (the API down, failure mode `allow`) are sent
 * again once the API answers.
 * - A backlog goes through in full batches one after the other, not one batch per 5 s, and versions of
 *   a kind the source no longer analyses do not hold it back (the daemon on the TestClock, a real
 *   SQLite file, the sandbox API).
 * - An item can be edited between the sweep reading its version and the entity taking the sweep's
 *   batch. The batch processor leaves such a stale version alone: the edit stays the newest version
 *   (recording the older text again would make the daemon moderate on text the item no longer holds),
 *   while a version that still is the newest gets its verdict.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Sandbox } from "@warden/sandbox"
import { Transport } from "@warden/transport"
import { AnalyzeV1, FeedbackV1 } from "@warden/v1"
import { LegacyBatch } from "@warden/legacy"
import { Connector, type SourceEvent } from "@warden/connector"
import { Clock, Context, Effect, Layer, Schema, Stream } from "effect"
import { sqlLayer } from "../src/Daemon.ts"
import type * as BatchEvent from "../src/engine/BatchEvent.ts"
import { BatchProcessor } from "../src/engine/BatchProcessor.ts"
import * as ContentHash from "../src/engine/ContentHash.ts"
import { FeedbackService } from "../src/engine/FeedbackService.ts"
import { LegacyAnalyzer } from "../src/engine/LegacyAnalyzer.ts"
import { SourceStatus } from "../src/engine/SourceStatus.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { itemRecord } from "./support/ItemRecords.ts"
import { sourceSettings } from "./support/TestPlatform.ts"
import { daemonOnTestClock } from "./support/InProcess.ts"
import { eventually, passUntil } from "./support/TestTime.ts"

const settings = sourceSettings("src", "scripted")

/** An item version recorded without a verdict, `minutesAgo` old, as the failure mode `allow` records it. */
const waiting = (reference: string, content: SourceEvent.Content, at: number) =>
  itemRecord("src", reference, 1, {
    contentHash: ContentHash.of(content),
    contentType: content.type,
    status: "unanalysed",
    endpoint: undefined,
    request: undefined,
    response: undefined,
    verdict: undefined,
    analysedAt: undefined,
    event: JSON.stringify({ kind: "upsert", reference, content }),
    createdAt: at
  })

/** A source that emits nothing: the sweep is the only work. */
const quiet = Connector.make({
  type: "quiet",
  configSchema: Schema.Struct({}),
  capabilities: { actions: [], duplicates: "possible", contentTypes: ["text", "image"] },
  make: () => Effect.succeed({ events: () => Stream.never })
})

describe("the re-analysis sweep", () => {
  it.effect(
    "sends a backlog in full batches one after the other, past versions of a kind the source no longer analyses",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.start()
        const filename = join(mkdtempSync(join(tmpdir(), "warden-sweep-")), "state.db")
        // 250 texts waiting, and 150 older images the source no longer analyses (its `analyse: [text]`).
        yield* Effect.gen(function* () {
          const items = yield* ItemStore
          yield* items.recordItems(
            Array.from({ length: 150 }, (_, i) => ({
              item: waiting(`image:${i}`, { type: "image", url: `https://img.example/${i}.png` }, 1_000 + i),
              sinks: [],
              payload: "{}"
            }))
          )
          yield* items.recordItems(
            Array.from({ length: 250 }, (_, i) => ({
              item: waiting(`text:${i}`, { type: "text", text: `Comment number ${i}` }, 10_000 + i),
              sinks: [],
              payload: "{}"
            }))
          )
        }).pipe(Effect.provide(StateStore.layer.pipe(Layer.provideMerge(sqlLayer({ _tag: "sqlite", filename })))))
        const { context } = yield* daemonOnTestClock(
          {
            api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
            sources: [{ settings: sourceSettings("src", "quiet"), connector: quiet, config: {} }],
            sinks: Layer.succeed(SinkList, []),
            sinkNames: [],
            pipeline: { batchSize: 100 }
          },
          filename
        )
        const items = Context.get(context, ItemStore)
        const analysedTexts = Effect.map(
          items.latestVersions(
            "src",
            Array.from({ length: 250 }, (_, i) => `text:${i}`)
          ),
          (latest) => [...latest.values()].filter((v) => v.status === "analysed").length
        )
        const started = yield* Clock.currentTimeMillis
        // The source starts once the daemon's singletons are assigned: time passes until its first sweep lands.
        yield* passUntil(
          Effect.map(analysedTexts, (n) => n > 0),
          "the first re-analysed batch"
        )
        // The rest without any more time passing: no 5 s wait between full batches.
        yield* eventually(
          Effect.map(analysedTexts, (n) => n === 250),
          "all 250 texts re-analysed"
        )
        assert.isBelow((yield* Clock.currentTimeMillis) - started, 5_000)
        const images = yield* items.latestVersions(
          "src",
          Array.from({ length: 150 }, (_, i) => `image:${i}`)
        )
        assert.deepStrictEqual(new Set([...images.values()].map((v) => v.status)), new Set(["unanalysed"]))
      }).pipe(Effect.scoped)
  )
})

const upsert = (reference: string, text: string): BatchEvent.Upsert => ({
  kind: "upsert",
  reference,
  content: { type: "text", text }
})

/** The batch processor on a fresh SQLite file and the sandbox at `api`, failure mode `allow`. */
const processorOn = (api: string) =>
  BatchProcessor.layer({ sinks: [], concurrency: 4 }).pipe(
    Layer.provide(LegacyAnalyzer.layer),
    Layer.provideMerge(FeedbackService.layer),
    Layer.provideMerge(SourceStatus.layer),
    Layer.provideMerge(
      Layer.mergeAll(
        AnalyzeV1.AnalyzeV1.layerUntraced,
        FeedbackV1.FeedbackV1.layerUntraced(),
        LegacyBatch.LegacyBatch.layer
      ).pipe(
        Layer.provideMerge(
          Transport.Transport.layerOptions({ apiKey: "sandbox-standard-key", baseUrls: { global: api } })
        )
      )
    ),
    Layer.provideMerge(
      StateStore.layer.pipe(
        Layer.provideMerge(
          sqlLayer({ _tag: "sqlite", filename: join(mkdtempSync(join(tmpdir(), "warden-stale-")), "state.db") })
        )
      )
    )
  )

describe("a re-analysis batch", () => {
  it.live("leaves a version an edit has superseded, and analyses one that is still the newest", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandbox.start()
      yield* Effect.gen(function* () {
        const processor = yield* BatchProcessor
        const items = yield* ItemStore
        const versions = (reference: string) =>
          Effect.map(items.latestVersions("src", [reference]), (latest) => latest.get(reference))
        // Both items recorded without a verdict while the API was down (failure mode allow).
        const first = "The first text of the edited comment"
        const other = "A comment nobody edited"
        yield* processor.process(settings, [upsert("edited", first), upsert("kept", other)], { degraded: "allow" })
        // The sweep reads both; before its batch is taken, the source records the edit.
        const swept = [upsert("edited", first), upsert("kept", other)]
        const second = "The second text of the edited comment"
        const edit = yield* processor.process(settings, [upsert("edited", second)])
        assert.strictEqual(edit.analysed, 1)
        const summary = yield* processor.process(settings, swept, { reanalysis: true })
        assert.deepStrictEqual([summary.analysed, summary.unchanged], [1, 1])
        // The edit is still the newest version; the unedited item's verdict is its next version.
        const edited = yield* versions("edited")
        assert.strictEqual(edited?.version, 2)
        assert.strictEqual(edited?.contentHash, ContentHash.of({ type: "text", text: second }))
        assert.strictEqual(edited?.status, "analysed")
        const kept = yield* versions("kept")
        assert.strictEqual(kept?.version, 2)
        assert.strictEqual(kept?.contentHash, ContentHash.of({ type: "text", text: other }))
        assert.strictEqual(kept?.status, "analysed")
      }).pipe(Effect.provide(processorOn(sandbox.url)))
    }).pipe(Effect.scoped)
  )
})
