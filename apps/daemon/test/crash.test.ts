/**
 * Crash safety, with the daemon as a real process: kill -9 at random moments of a 2,000-item run,
 * restart each time. At the end every item has exactly one verdict record per version, the sink saw
 * every verdict, and no item was analysed twice unless its call was in flight at a kill.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDaemon, waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { jsonlRecords } from "./support/FeedPipeline.ts"
import { startFeedServer } from "./support/FeedServer.ts"
import * as StateDb from "./support/StateDb.ts"

const N = 2000
const KILLS = 5
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"

/** The sink's complete lines: the last one may still be being written (or cut short by a kill -9). */
const jsonl = (file: string) => jsonlRecords<{ reference: string; version: number }>(file)

const items = Array.from({ length: N }, (_, i) => ({
  guid: `c-${i}`,
  title: `Comment ${i}`,
  description: i % 7 === 0 ? `You are an idiot, number ${i}` : `A perfectly fine comment number ${i}`
}))
/**
 * The feed grows between runs: run k (from 0) sees the first (k + 1) / (KILLS + 1) of the items, the last
 * run all of them. So every kill lands with work left however fast the machine is (a daemon reads a
 * backlog on at once, as fast as the sandbox answers: with all 2,000 in the feed from the start, a fast
 * machine had recorded them all before the 5th kill).
 */
const shownInRun = (k: number) => Math.round((N * (k + 1)) / (KILLS + 1))

describe("kill -9 during a run", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  const dir = mkdtempSync(join(tmpdir(), "warden-crash-"))
  const state = join(dir, "state.db")
  const out = join(dir, "verdicts.jsonl")

  beforeAll(async () => {
    sandbox = await Sandbox.startPromise({ requestLogSize: 20_000 })
    feed = await startFeedServer(items.slice(0, shownInRun(0)))
  })
  afterAll(async () => {
    await feed.close()
    await sandbox.close()
  })

  it("loses nothing and analyses again only what was in flight", async () => {
    const config = writeConfig(dir, {
      api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url, retry: { maxAttempts: 3 } },
      state: { sqlite: state },
      sources: [
        {
          id: "feed",
          type: "rss",
          channelId: CHANNEL,
          // Small polls: a run's new items come in over several batches, so a kill lands mid-work.
          config: { feeds: [{ url: feed.url, id: "f" }], pollInterval: "100 millis", maxItemsPerPoll: 50 }
        }
      ],
      sinks: [{ type: "jsonl", path: out }],
      admin: { listen: "127.0.0.1:0" },
      log: { format: "json" }
    })
    const analyseCalls = async () =>
      (await Effect.runPromise(sandbox.requests)).filter((r) => r.endpoint === "analyzeText" && r.status === 200)
    const referenceOf = (body: string) => (JSON.parse(body) as { reference: string }).reference
    const inFlightAtKill: Array<Set<string>> = []
    const recordedAtKill: Array<number> = []
    const recordedCount = () =>
      Number(StateDb.query<{ n: number }>(state, "SELECT COUNT(*) AS n FROM warden_items")[0]?.n ?? 0)
    for (let k = 0; k < KILLS; k++) {
      feed.setItems(items.slice(0, shownInRun(k)))
      const daemon = startDaemon(config)
      const before = recordedCount()
      // Kill at a random moment of this run's work: once it has recorded between a tenth and a half of
      // the items new to it. The bound is a hang guard: at load 40-50 a daemon's start alone took 7-8 s.
      const target = before + Math.ceil((shownInRun(k) - before) * (0.1 + Math.random() * 0.4))
      await waitFor(() => recordedCount() >= target, 60_000, `progress before kill ${k + 1}\n${daemon.stderr()}`)
      daemon.child.kill("SIGKILL")
      await daemon.exited
      recordedAtKill.push(recordedCount())
      // A call the daemon made just before dying is logged by the sandbox when it is answered:
      // wait until the log stops growing before taking the snapshot.
      let seen = -1
      await waitFor(
        async () => {
          const n = (await Effect.runPromise(sandbox.requests)).length
          const settled = n === seen
          seen = n
          if (!settled) await new Promise((r) => setTimeout(r, 250))
          return settled
        },
        10_000,
        "the sandbox's log to settle"
      )
      const called = new Set((await analyseCalls()).map((r) => referenceOf(r.body)))
      const recorded = new Set(
        StateDb.query<{ reference: string }>(state, "SELECT reference FROM warden_items").map((r) => r.reference)
      )
      inFlightAtKill.push(new Set([...called].filter((ref) => !recorded.has(ref))))
    }
    // The last run finishes the job.
    feed.setItems(items)
    const daemon = startDaemon(config)
    await waitFor(
      () => new Set(jsonl(out).map((l) => l.reference)).size >= N,
      180_000,
      () => `all ${N} verdicts in the sink\n${daemon.stderr().slice(-2000)}`
    )
    const { code } = await daemon.stop("SIGTERM")
    expect(code).toBe(0)

    // Exactly one verdict record per item version.
    const rows = StateDb.query<{ reference: string; version: number }>(
      state,
      "SELECT reference, version FROM warden_items"
    )
    expect(rows.length).toBe(N)
    expect(new Set(rows.map((r) => r.reference)).size).toBe(N)
    expect(rows.every((r) => Number(r.version) === 1)).toBe(true)
    // The sink saw every verdict (at least once).
    expect(new Set(jsonl(out).map((l) => `${l.reference}@${l.version}`)).size).toBe(N)
    // An item was analysed more than once only when its call was in flight at a kill, once per kill.
    const calls = new Map<string, number>()
    for (const r of await analyseCalls()) calls.set(referenceOf(r.body), (calls.get(referenceOf(r.body)) ?? 0) + 1)
    expect(calls.size).toBe(N)
    console.log(
      `analyse calls: ${[...calls.values()].reduce((a, b) => a + b, 0)} for ${N} items; recorded at kills: ${recordedAtKill.join(", ")}; in flight at kills: ${inFlightAtKill.map((s) => s.size).join(", ")}`
    )
    for (const [ref, n] of calls) {
      const kills = inFlightAtKill.filter((s) => s.has(ref)).length
      expect(n, `${ref} analysed ${n} times, in flight at ${kills} kills`).toBeLessThanOrEqual(1 + kills)
    }
  }, 600_000)
})
