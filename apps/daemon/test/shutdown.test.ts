/** SIGTERM during load: the daemon drains, flushes its checkpoint and exits 0 within 10 s. */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDaemon, waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { startFeedServer } from "./support/FeedServer.ts"
import * as StateDb from "./support/StateDb.ts"

const N = 1500

describe("SIGTERM under load", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  beforeAll(async () => {
    // A slow API keeps work in flight when the signal comes.
    sandbox = await Sandbox.startPromise({ requestLogSize: 10_000, faults: { stall: 0.2, stallMs: 300, seed: 7 } })
    feed = await startFeedServer(
      Array.from({ length: N }, (_, i) => ({ guid: `s-${i}`, title: `t${i}`, description: `comment ${i} on the news` }))
    )
  })
  afterAll(async () => {
    await feed.close()
    await sandbox.close()
  })

  it("exits 0 within 10 s with the checkpoint flushed, and a restart repeats no analysed item", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-shutdown-"))
    const state = join(dir, "state.db")
    const config = writeConfig(dir, {
      api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url },
      state: { sqlite: state },
      sources: [
        {
          id: "feed",
          type: "rss",
          channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
          config: { feeds: [{ url: feed.url, id: "f" }], pollInterval: "100 millis", maxItemsPerPoll: 200 }
        }
      ],
      sinks: [{ type: "jsonl", path: join(dir, "out.jsonl") }],
      admin: { listen: "127.0.0.1:0" },
      log: { format: "json" }
    })
    const daemon = startDaemon(config)
    const count = () => Number(StateDb.query<{ n: number }>(state, "SELECT COUNT(*) AS n FROM warden_items")[0]?.n ?? 0)
    await waitFor(() => count() >= 300, 30_000, `load\n${daemon.stderr()}`)
    const signalledAt = Date.now()
    const { code } = await daemon.stop("SIGTERM")
    const took = Date.now() - signalledAt
    expect(code).toBe(0)
    expect(took).toBeLessThan(10_000)
    const checkpoint = StateDb.query<{ updated_at: number }>(
      state,
      "SELECT updated_at FROM warden_checkpoints WHERE source = 'feed'"
    )
    expect(checkpoint.length).toBe(1)
    expect(Number(checkpoint[0]!.updated_at)).toBeGreaterThan(signalledAt - 5_000)

    // A restart carries on: no item recorded before the stop is analysed again.
    const recorded = new Set(
      StateDb.query<{ reference: string }>(state, "SELECT reference FROM warden_items").map((r) => r.reference)
    )
    const callsBefore = (await Effect.runPromise(sandbox.requests)).length
    const again = startDaemon(config)
    await waitFor(
      () => count() >= N,
      60_000,
      () => `the rest\n${again.stderr().slice(-1500)}`
    )
    expect((await again.stop("SIGTERM")).code).toBe(0)
    const repeated = (await Effect.runPromise(sandbox.requests))
      .slice(callsBefore)
      .filter((r) => r.endpoint === "analyzeText" && recorded.has(JSON.parse(r.body).reference))
    expect(repeated).toEqual([])
  }, 120_000)
})
