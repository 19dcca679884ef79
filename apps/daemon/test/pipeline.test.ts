import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Daemon from "../src/Daemon.ts"
import { DecisionStore } from "../src/state/DecisionStore.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { jsonlRecords as jsonLines, jsonlSink, rssSource } from "./support/FeedPipeline.ts"
import { type FeedItem, startFeedServer } from "./support/FeedServer.ts"
import { freshDatabase } from "./support/Postgres.ts"

const texts = [
  "What a lovely article, thank you!",
  "You are an idiot and everyone hates you",
  "I will find you and hurt you",
  "Merci pour cet article, très utile",
  "Du bist ein Idiot",
  "Interesting point about the budget."
]
const items = (n: number): Array<FeedItem> =>
  Array.from({ length: n }, (_, i) => ({
    guid: `item-${i}`,
    title: `Comment ${i}`,
    description: texts[i % texts.length]!
  }))

describe.each([
  ["v1", "sqlite"],
  ["legacy", "sqlite"],
  ["v1", "postgres"]
] as const)("the pipeline in %s mode on %s", (mode, database) => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  const dir = mkdtempSync(join(tmpdir(), `warden-pipeline-${mode}-`))
  const out = join(dir, "verdicts.jsonl")
  const N = 60

  let state: Daemon.StateLocation = { _tag: "sqlite", filename: join(dir, "state.db") }
  let dropDatabase = async () => {}

  beforeAll(async () => {
    sandbox = await Sandbox.startPromise()
    feed = await startFeedServer(items(N))
    if (database === "postgres") {
      const db = await freshDatabase()
      state = { _tag: "postgres", url: Redacted.make(db.url) }
      dropDatabase = db.drop
    }
  })
  afterAll(async () => {
    await feed.close()
    await sandbox.close()
    await dropDatabase()
  })

  it("turns every feed item into one verdict in the sink and the store", async () => {
    const spec: Daemon.DaemonSpec = {
      state,
      api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url }, legacyBaseUrl: sandbox.url },
      sources: [
        rssSource(
          { feeds: [feed.url], pollInterval: "200 millis", retry: { initial: "100 millis", max: "1 second" } },
          { mode }
        )
      ],
      ...jsonlSink(out),
      admin: undefined,
      includeContent: false
    }
    const fiber = Effect.runFork(Layer.launch(Daemon.layer(spec)))
    try {
      await waitFor(() => jsonLines(out).length >= N, 30_000, `${N} verdicts`)
      const lines = jsonLines(out)
      const references = new Set(lines.map((l) => l.reference))
      expect(references.size).toBe(N)
      expect(lines.filter((l) => !(l.status === "analysed" && l.mode === mode && l.version === 1))).toEqual([])
      expect(lines.some((l) => l.verdict.recommendedAction === "REMOVE")).toBe(true)
      // A few more polls of the unchanged feed cost no API call.
      const calls = (await Effect.runPromise(sandbox.requests)).length
      const hits = feed.hits()
      // the third poll's request arrived: the two before it have been handled
      await waitFor(() => feed.hits() >= hits + 3, 10_000, "three more polls")
      const after = (await Effect.runPromise(sandbox.requests)).length
      expect(after).toBe(calls)
      expect(jsonLines(out).length).toBe(N)
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber))
    }
    // The store holds one version per item, with the exact request sent.
    const rows = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* DecisionStore
        return yield* store.decisions({ limit: 1000 })
      }).pipe(Effect.provide(StateStore.layer.pipe(Layer.provide(Daemon.sqlLayer(spec.state)))))
    )
    expect(rows.length).toBe(N)
    for (const row of rows) expect(row.request).not.toBeNull()
  })
})

describe("legacy mode with a backlog", () => {
  // One poll of 800 items, one message each: on one partition a source batch is 4 micro-batches of
  // 100, so every request to the legacy endpoint is full (320-event batches made 100, 100, 100 and 20:
  // 79 messages per request on average in bench/daemon-throughput.ts).
  it("sends full micro-batches of 100 messages", async () => {
    const N = 800
    const sandbox = await Sandbox.startPromise()
    const feed = await startFeedServer(items(N))
    const dir = mkdtempSync(join(tmpdir(), "warden-legacy-full-"))
    const out = join(dir, "verdicts.jsonl")
    const spec: Daemon.DaemonSpec = {
      state: { _tag: "sqlite", filename: join(dir, "state.db") },
      api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url }, legacyBaseUrl: sandbox.url },
      sources: [rssSource({ feeds: [feed.url], pollInterval: "1 hour", maxItemsPerPoll: N }, { mode: "legacy" })],
      ...jsonlSink(out),
      admin: undefined,
      includeContent: false,
      // a batch closes on its size, not on a pause of a loaded machine
      pipeline: { maxWait: "10 seconds" }
    }
    const fiber = Effect.runFork(Layer.launch(Daemon.layer(spec)))
    try {
      await waitFor(() => jsonLines(out).length >= N, 60_000, `${N} verdicts`)
      const legacy = (await Effect.runPromise(sandbox.requests)).filter((r) => r.endpoint === "legacyAnalyze")
      expect(legacy.length).toBe(N / 100)
      expect(new Set(jsonLines(out).map((l) => l.reference)).size).toBe(N)
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber))
      await feed.close()
      await sandbox.close()
    }
  })
})
