/**
 * Issue 20: a feed polled as users poll it (a large window, a few new items per poll) must not grow the
 * state with polls x window. The cluster tables hold only the batches in flight (processed messages are
 * purged once acknowledged), no persisted message carries a checkpoint, and the checkpoint stays small.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Checkpoint } from "@warden/connector"
import { Sandbox } from "@warden/sandbox"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Daemon from "../src/Daemon.ts"
import type * as StateStats from "../src/state/StateStats.ts"
import { waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { jsonlRecords, jsonlSink, rssSource } from "./support/FeedPipeline.ts"
import { type FeedItem, startFeedServer } from "./support/FeedServer.ts"
import { freshDatabase } from "./support/Postgres.ts"
import { warden } from "./support/WardenCli.ts"

const WINDOW = 300
const PER_POLL = 15

/** The newest `WINDOW` of `total` items, newest first, as a feed lists them. */
const window = (total: number): Array<FeedItem> => {
  const out: Array<FeedItem> = []
  for (let i = total - 1; i >= Math.max(0, total - WINDOW); i--) {
    out.push({ guid: `c-${i}`, title: `Comment ${i}`, description: `Comment number ${i}, thanks for the article` })
  }
  return out
}

interface Snapshot {
  readonly items: number
  readonly messages: number
  readonly messageBytes: number
  readonly replies: number
  readonly withCheckpoint: number
  readonly checkpoint: string | undefined
}

describe.each(["sqlite", "postgres"] as const)("polling a large-window feed on %s", (database) => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  const dir = mkdtempSync(join(tmpdir(), "warden-disk-"))
  let state: Daemon.StateLocation = { _tag: "sqlite", filename: join(dir, "state.db") }
  let dropDatabase = async () => {}

  beforeAll(async () => {
    sandbox = await Sandbox.startPromise()
    feed = await startFeedServer(window(WINDOW))
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

  it("keeps the cluster tables and the checkpoint bounded over many polls, and delivers every item once", async () => {
    const out = join(dir, `${database}.jsonl`)
    const spec: Daemon.DaemonSpec = {
      state,
      api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
      sources: [rssSource({ feeds: [feed.url], pollInterval: "50 millis", maxItemsPerPoll: 1000 })],
      ...jsonlSink(out),
      admin: undefined
    }
    const jsonLines = () => jsonlRecords<{ reference: string }>(out)
    const snapshot = () =>
      Effect.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [items] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM warden_items`
          const [messages] = yield* sql<{ n: number; bytes: number | null }>`
            SELECT COUNT(*) AS n, SUM(LENGTH(payload)) AS bytes FROM cluster_messages`
          const [replies] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM cluster_replies`
          const [carrying] = yield* sql<{ n: number }>`
            SELECT COUNT(*) AS n FROM cluster_messages WHERE payload LIKE ${"%checkpoint%"}`
          const [checkpoint] = yield* sql<{ checkpoint: string }>`SELECT checkpoint FROM warden_checkpoints`
          return {
            items: Number(items!.n),
            messages: Number(messages!.n),
            messageBytes: Number(messages!.bytes ?? 0),
            replies: Number(replies!.n),
            withCheckpoint: Number(carrying!.n),
            checkpoint: checkpoint?.checkpoint
          } satisfies Snapshot
        }).pipe(Effect.provide(Daemon.sqlLayer(state)), Effect.scoped)
      )
    // The tables appear once the daemon has migrated: until then a query fails.
    const items = () =>
      snapshot().then(
        (s) => s.items,
        () => 0
      )
    const fiber = Effect.runFork(Layer.launch(Daemon.layer(spec)))
    try {
      let total = WINDOW
      await waitFor(async () => (await items()) >= total, 60_000, "the first window")
      const samples: Array<Snapshot> = []
      // 30 polls' worth of growth: each new document repeats WINDOW - PER_POLL items already analysed.
      for (let round = 0; round < 30; round++) {
        total += PER_POLL
        feed.setItems(window(total))
        const target = total
        await waitFor(async () => (await items()) >= target, 30_000, `${target} items`)
        const hits = feed.hits()
        await waitFor(() => feed.hits() >= hits + 2, 10_000, "two more polls")
        samples.push(await snapshot())
      }
      total += PER_POLL
      feed.setItems(window(total))
      await waitFor(async () => (await items()) >= total, 30_000, "the last items")
      const last = await snapshot()
      samples.push(last)

      expect(last.items).toBe(total)
      await waitFor(() => jsonLines().length >= total, 30_000, "every verdict in the sink")
      const lines = jsonLines()
      expect(lines.length).toBe(total)
      expect(new Set(lines.map((l) => l.reference)).size).toBe(total)
      expect(samples.every((s) => s.withCheckpoint === 0)).toBe(true)
      // Without the purge every processed message stayed: 31 rounds x (window / batch) rows. Bounded
      // means the batches in flight at most (16 in flight x up to 4 partitions), whatever the number of polls.
      const maxMessages = Math.max(...samples.map((s) => s.messages))
      expect(maxMessages).toBeLessThanOrEqual(64)
      expect(Math.max(...samples.map((s) => s.replies))).toBeLessThanOrEqual(64)
      expect(Math.max(...samples.map((s) => s.messageBytes))).toBeLessThan(512 * 1024)
      expect(last.checkpoint).toBeDefined()
      expect(Buffer.byteLength(last.checkpoint!)).toBeLessThanOrEqual(Checkpoint.maxBytes)
      // And it does not grow with the items: the same size at the start and the end of the run.
      expect(Buffer.byteLength(last.checkpoint!)).toBeLessThanOrEqual(Buffer.byteLength(samples[0]!.checkpoint!) + 16)
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber))
    }
    if (database === "sqlite") {
      // `warden state stats` reads the same numbers an operator sees.
      const config = writeConfig(dir, { state: { sqlite: join(dir, "state.db") } })
      const { code, stdout, stderr } = await warden(["state", "stats", "--config", config, "--json"])
      expect(code, stderr).toBe(0)
      const stats = JSON.parse(stdout) as StateStats.Stats
      const table = (name: string) => stats.tables.find((t) => t.table === name)
      expect(table("warden_items")?.rows).toBe(WINDOW + 31 * PER_POLL)
      expect(table("warden_items")!.bytes).toBeGreaterThan(0)
      expect(table("cluster_messages")!.rows).toBeLessThanOrEqual(64)
      expect(stats.totalBytes).toBeGreaterThan(0)
      expect(stats.oldestUnprocessedAt).toBeUndefined()
      // The command's own --help example, without --json: the table (it answered "Missing required flag").
      const plain = await warden(["state", "stats", "--config", config])
      expect(plain.code, plain.stderr).toBe(0)
      expect(plain.stdout).toMatch(/warden_items\s+\d/u)
    }
  }, 240_000)
})
