/**
 * The re-analysis sweep re-sends stored versions that have no verdict; an item can be edited between
 * the sweep reading its version and the entity taking the sweep's batch. The batch processor, on a real
 * SQLite file and the sandbox API, leaves such a stale version alone: the edit stays the newest version
 * (recording the older text again would make the daemon moderate on text the item no longer holds),
 * while a version that still is the newest gets its verdict.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Sandbox } from "@warden/sandbox"
import { Transport } from "@warden/transport"
import { AnalyzeV1, FeedbackV1 } from "@warden/v1"
import { LegacyBatch } from "@warden/legacy"
import { Effect, Layer } from "effect"
import { sqlLayer } from "../src/Daemon.ts"
import type * as BatchEvent from "../src/engine/BatchEvent.ts"
import { BatchProcessor } from "../src/engine/BatchProcessor.ts"
import * as ContentHash from "../src/engine/ContentHash.ts"
import { FeedbackService } from "../src/engine/FeedbackService.ts"
import { LegacyAnalyzer } from "../src/engine/LegacyAnalyzer.ts"
import { SourceStatus } from "../src/engine/SourceStatus.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { sourceSettings } from "./support/TestPlatform.ts"

const settings = sourceSettings("src", "scripted")

const upsert = (reference: string, text: string): BatchEvent.Upsert => ({
  kind: "upsert",
  reference,
  content: { type: "text", text }
})

/** The batch processor on a fresh SQLite file and the sandbox at `api`, failure mode `allow`. */
const processorOn = (api: string) =>
  BatchProcessor.layer({ sinks: [], includeContent: false, concurrency: 4 }).pipe(
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
