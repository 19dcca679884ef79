import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, it as effectIt } from "@effect/vitest"
import { Sandbox } from "@warden/sandbox"
import { Clock, Context, Effect, Fiber, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Daemon from "../src/Daemon.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { DecisionStore } from "../src/state/DecisionStore.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { jsonlRecords as jsonLines, jsonlSink, rssSource } from "./support/FeedPipeline.ts"
import { type FeedItem, rss, startFeedServer } from "./support/FeedServer.ts"
import { serve } from "./support/LoopbackServer.ts"
import { freshDatabase } from "./support/Postgres.ts"
import { query } from "./support/StateDb.ts"
import { adjustTo, atWallTime, buildOnTestClock, eventually, passUntil } from "./support/TestTime.ts"

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
      admin: undefined
    }
    const fiber = Effect.runFork(Layer.launch(Daemon.layer(spec)))
    try {
      await waitFor(() => jsonLines(out).length >= N, 30_000, `${N} verdicts`)
      const lines = jsonLines(out)
      const references = new Set(lines.map((l) => l.reference))
      expect(references.size).toBe(N)
      expect(lines.filter((l) => !(l.status === "analysed" && l.mode === mode && l.version === 1))).toEqual([])
      expect(lines.some((l) => l.verdict.recommendedAction === "REMOVE")).toBe(true)
      // The polls that follow cost no API call for the items already sent. On SQLite that is tested on
      // the TestClock (below). On PostgreSQL it stays on real time: there the daemon is a socket runner
      // whose shard locks are refreshed over the network, which a minute's jump of the TestClock can
      // outrun (seen: a poll's item then never delivered while the clock stood still).
      if (database === "postgres") {
        const calls = (await Effect.runPromise(sandbox.requests)).length
        const hits = feed.hits()
        // the third poll's request arrived: the two before it have been handled
        await waitFor(() => feed.hits() >= hits + 3, 10_000, "three more polls")
        const after = (await Effect.runPromise(sandbox.requests)).length
        expect(after).toBe(calls)
        expect(jsonLines(out).length).toBe(N)
      }
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
      // a batch closes on its size, not on a pause of a loaded machine
      pipeline: { maxWait: "10 seconds" }
    }
    const fiber = Effect.runFork(Layer.launch(Daemon.layer(spec)))
    try {
      await waitFor(() => jsonLines(out).length >= N, 60_000, `${N} verdicts`)
      const legacy = (await Effect.runPromise(sandbox.requests)).filter((r) => r.endpoint === "legacyAnalyze")
      expect(legacy.length).toBe(N / 100)
      expect(new Set(jsonLines(out).map((l) => l.reference)).size).toBe(N)
      // Each item records its own message of the call, in the call's envelope: not the whole call, which
      // stored every 100-message body 100 times (24 KB per item).
      const sent = new Map<string, { channelUuid: string; message: string }>()
      for (const call of legacy) {
        const body = JSON.parse(call.body) as { channelUuid: string; contents: Array<{ reference: string }> }
        for (const m of body.contents)
          sent.set(m.reference, { channelUuid: body.channelUuid, message: JSON.stringify(m) })
      }
      const stored = query<{ request: string }>(join(dir, "state.db"), "SELECT request FROM warden_items")
      expect(stored.length).toBe(N)
      for (const { request } of stored) {
        const recorded = JSON.parse(request) as { channelUuid: string; contents: Array<{ reference: string }> }
        expect(recorded.contents.length).toBe(1)
        const call = sent.get(recorded.contents[0]!.reference)
        expect(recorded.channelUuid).toBe(call?.channelUuid)
        expect(JSON.stringify(recorded.contents[0])).toBe(call?.message)
        expect(request.length).toBeLessThan(1000)
      }
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber))
      await feed.close()
      await sandbox.close()
    }
  })
})

describe.each(["v1", "legacy"] as const)(
  "a feed polled by the daemon in %s mode on SQLite, on the TestClock",
  (mode) => {
    const N = 6
    const POLL_INTERVAL = 60_000
    /** New items per poll: a full batch (v1: 1 item; legacy: 4 micro-batches of 1), which closes at once. */
    const perPoll = mode === "legacy" ? 4 : 1

    effectIt.effect(
      "is polled again a pollInterval after each poll; the items it sent before cost no API call, the new ones are analysed",
      () =>
        Effect.gen(function* () {
          // The feed server stamps each poll with the TestClock's time (set to the real time).
          yield* atWallTime
          const clock = yield* Clock.clockWith(Effect.succeed)
          const sandbox = yield* Sandbox.start()
          const feed = { items: items(N), polls: [] as Array<number> }
          const url = yield* serve((_req, res) => {
            feed.polls.push(clock.currentTimeMillisUnsafe())
            res.writeHead(200, { "content-type": "application/rss+xml; charset=utf-8" })
            res.end(rss(feed.items))
          })
          const dir = mkdtempSync(join(tmpdir(), `warden-polling-${mode}-`))
          const context = yield* buildOnTestClock(
            Daemon.layer({
              state: { _tag: "sqlite", filename: join(dir, "state.db") },
              api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url }, legacyBaseUrl: sandbox.url },
              sources: [rssSource({ feeds: [url], pollInterval: "1 minute" }, { mode })],
              sinks: Layer.succeed(SinkList, []),
              sinkNames: [],
              admin: undefined,
              // A full batch closes at once: a poll's new items reach the API without the clock moving
              // (no wait to fill a batch), so the clock stands still while a poll is in flight.
              pipeline: { batchSize: 1 }
            })
          )
          const decisions = Context.get(context, DecisionStore)
          const decided = Effect.map(decisions.decisions({ limit: 1000 }), (rows) => rows.length)
          /** Items sent to the API: one per v1 call, the messages of each legacy call. */
          const sent = Effect.map(sandbox.requests, (all) =>
            all.reduce(
              (n, r) =>
                n +
                (r.endpoint === "analyzeText"
                  ? 1
                  : r.endpoint === "legacyAnalyze"
                    ? JSON.parse(r.body).contents.length
                    : 0),
              0
            )
          )

          // The first poll when the source starts (after the daemon's singletons are assigned).
          yield* passUntil(
            Effect.map(decided, (n) => n === N),
            `${N} verdicts`
          )
          assert.strictEqual(yield* sent, N)
          for (let poll = 1; poll <= 3; poll++) {
            assert.strictEqual(feed.polls.length, poll)
            const polledAt = feed.polls[poll - 1]!
            // The poll's answer is in by now (its items are recorded): the next poll is due a pollInterval
            // after it, not before the poll was sent.
            const answeredBy = yield* Clock.currentTimeMillis
            const fresh = Array.from({ length: perPoll }, (_, i) => ({
              guid: `new-${poll}-${i}`,
              title: `New ${poll}.${i}`,
              description: texts[(poll + i) % texts.length]!
            }))
            feed.items = [...feed.items, ...fresh]
            yield* adjustTo(polledAt + POLL_INTERVAL - 1)
            assert.strictEqual(feed.polls.length, poll)
            yield* adjustTo(answeredBy + POLL_INTERVAL)
            yield* eventually(
              Effect.map(decided, (n) => n === N + poll * perPoll),
              `the verdicts of the items new in poll ${poll + 1}`
            )
            assert.strictEqual(feed.polls.length, poll + 1)
            assert.isAtLeast(feed.polls[poll]!, polledAt + POLL_INTERVAL)
            assert.isAtMost(feed.polls[poll]!, answeredBy + POLL_INTERVAL)
            // Every item of the feed came again: only the new ones reached the API.
            assert.strictEqual(yield* sent, N + poll * perPoll)
          }
        }).pipe(Effect.scoped),
      60_000
    )
  }
)
