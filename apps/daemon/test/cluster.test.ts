/**
 * Three `warden run` processes on one fresh PostgreSQL database form one effect/cluster. One scenario,
 * in steps that build on each other (each its own test, so a failure names the step):
 * 1. the work of one busy source reaches every runner (its partitions spread over the runners' shards);
 * 2. kill -9 of the runner running the source, then, with new items in flight, of the survivor that
 *    took the source over: the last runner takes every shard and the source, every item gets exactly
 *    one verdict record and reaches the webhook; only the sink batch in flight at each kill may be
 *    delivered again;
 * 3. the killed runners, restarted, take their share of the shards back and do work again;
 * 4. SIGTERM of the runner running the source: it hands its shards over and exits 0, nothing is
 *    delivered twice, and only the batches it was analysing are analysed again (no redelivery storm).
 * Speed is the benchmark's question (bench/daemon-cluster.ts): the waits here are ceilings for "it
 * happens" on a loaded machine, never targets; takeover is asserted under 30 s only, against a
 * regression to effect's defaults (~37 s).
 */
import { mkdirSync, mkdtempSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Sandbox } from "@warden/sandbox"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ClusterAdmin from "./support/ClusterAdmin.ts"
import {
  type DaemonProcess,
  freePort,
  killAll,
  startDaemon,
  waitShowingLogs,
  writeConfig
} from "./support/DaemonProcess.ts"
import { type FeedItem, startFeedServer } from "./support/FeedServer.ts"
import { freshDatabase } from "./support/Postgres.ts"

const N = 1500
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const TOKEN = "cluster-test-admin-token"
const SHARDS = 300
/** The webhook sink's batch (WebhookSink): the most a runner killed mid-delivery leaves unmarked. */
const SINK_BATCH = 64
/** One source batch in cluster mode (Daemon.clusterPipeline): the bound on re-analysis at a leave. */
const SOURCE_BATCH = 400

const items = (from: number, to: number): Array<FeedItem> =>
  Array.from({ length: to - from }, (_, k) => {
    const i = from + k
    return {
      guid: `c-${i}`,
      title: `Comment ${i}`,
      description: i % 7 === 0 ? `You are an idiot, number ${i}` : `A perfectly fine comment number ${i}`
    }
  })

describe("three runners on one PostgreSQL database", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let pg: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>
  const deliveries = new Map<string, number>()
  let webhook: ReturnType<typeof createHttpServer>
  let webhookUrl = ""
  const runners: Array<{ admin: number; cluster: number; config: string; daemon: DaemonProcess }> = []
  /** Indexes in `runners` of the two killed in step 2, in order. */
  const victims: Array<number> = []
  /** Items in the feed after step 2 (its second kill happens with the last of them in flight). */
  const M = N + 600

  const query = <A extends object>(text: string) =>
    pg.runPromise(Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.unsafe<A>(text)))
  const recorded = async () => Number((await query<{ n: string }>("SELECT COUNT(*) AS n FROM warden_items"))[0]!.n)
  const duplicates = () => [...deliveries.values()].reduce((a, n) => a + n - 1, 0)
  const analysed = async () => {
    const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
      byEndpoint: Record<string, Record<string, number>>
    }
    return stats.byEndpoint.analyzeText?.["200"] ?? 0
  }
  const view = ClusterAdmin.make({ token: TOKEN, shards: SHARDS, adminPort: (i) => runners[i]!.admin })
  const self = view.self
  const running = (i: number) =>
    runners[i]!.daemon.child.exitCode === null && runners[i]!.daemon.child.signalCode === null
  /** The runners `live` hold every shard between them, each some, and one of them runs the source. */
  const holdEverything = (live: ReadonlyArray<number>) => view.holdEverything(live, "source:feed")
  const sourceRunner = (live: ReadonlyArray<number>) => view.running(live, "source:feed")
  /** `waitFor`, its failure showing `what` as it is then and the runners' last log lines. */
  const within = waitShowingLogs(() => runners.map((r) => r.daemon))

  beforeAll(async () => {
    sandbox = await Sandbox.startPromise({ requestLogSize: 10 })
    feed = await startFeedServer([])
    db = await freshDatabase()
    pg = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(db.url) }))
    webhook = createHttpServer((req, res) => {
      const id = String(req.headers["x-warden-delivery"])
      deliveries.set(id, (deliveries.get(id) ?? 0) + 1)
      req.resume()
      req.on("end", () => res.writeHead(204).end())
    })
    await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve))
    webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`
    for (const i of [0, 1, 2]) {
      const admin = await freePort()
      const cluster = await freePort()
      const dir = join(mkdtempSync(join(tmpdir(), "warden-cluster-")), `runner-${i}`)
      mkdirSync(dir)
      const config = writeConfig(dir, {
        api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url, retry: { maxAttempts: 3 } },
        state: { postgres: db.url },
        sources: [
          {
            id: "feed",
            type: "rss",
            channelId: CHANNEL,
            config: { feeds: [{ url: feed.url, id: "f" }], pollInterval: "100 millis", maxItemsPerPoll: 250 }
          }
        ],
        sinks: [{ type: "webhook", url: webhookUrl }],
        admin: { listen: `127.0.0.1:${admin}`, token: TOKEN },
        cluster: { runnerAddress: `127.0.0.1:${cluster}` },
        log: { format: "json" }
      })
      runners.push({ admin, cluster, config, daemon: startDaemon(config, { WARDEN_LOG_LEVEL: "warning" }) })
    }
    // The cluster has formed: three runners holding all 300 shards, before any item exists.
    // Every bound in this file is a hang guard, never a speed target (bench/daemon-cluster.ts measures
    // takeover): at load ~48 on two cores, forming alone ran past 100 s.
    await within(
      () => holdEverything([0, 1, 2]),
      200_000,
      () => "three runners sharing the shards"
    )
  }, 360_000)

  afterAll(async () => {
    await killAll(runners.map((r) => r.daemon))
    await pg?.dispose()
    await db?.drop()
    await new Promise<void>((resolve) => webhook.close(() => resolve()))
    await feed?.close()
    await sandbox?.close()
  })

  it("shares one source's work: each runner does a real share while all three run", async () => {
    const formed = (await view.overview(0))!
    expect(formed.mode).toBe("cluster")
    expect(formed.runners.filter((r) => r.healthy === true && !r.stale)).toHaveLength(3)
    feed.setItems(items(0, N))
    // Each runner's own live count (not its report, which can be seconds old): all three above 10%.
    let shares: Array<number> = []
    await within(
      async () => {
        shares = await Promise.all([0, 1, 2].map(async (i) => (await self(i))?.items ?? 0))
        const total = shares.reduce((a, b) => a + b, 0)
        return total >= N / 3 && shares.every((share) => share > total * 0.1)
      },
      120_000,
      () => `every runner doing a share of the work (last counts: ${shares.join(" / ")})`
    )
    console.log(`items per runner: ${shares.join(" / ")}`)
  }, 210_000)

  it("kill -9 of the source's runner, then of the survivor that took the source over: the last one finishes, one verdict per item, only the sink batches in flight repeat", async () => {
    /** kill -9 of the runner in `live` running the source; waits for the others to take everything over. */
    const killSourceRunner = async (live: ReadonlyArray<number>, which: string) => {
      const victim = await sourceRunner(live)
      expect(victim).toBeGreaterThanOrEqual(0)
      victims.push(victim)
      const killedAt = Date.now()
      runners[victim]!.daemon.child.kill("SIGKILL")
      await runners[victim]!.daemon.exited
      const rest = live.filter((i) => i !== victim)
      await within(
        () => holdEverything(rest),
        90_000,
        () => `after the ${which} kill, runners ${rest.join(", ")} to hold every shard and the source`
      )
      const seconds = (Date.now() - killedAt) / 1000
      console.log(`takeover after the ${which} kill -9: ${seconds.toFixed(1)} s`)
      // A regression guard, not the target (the bench measures that: <= 5 s, median 2.5 s on a quiet
      // machine): effect's own health check and lock settings take ~37 s; loaded CI runs took 1.5-3.7 s.
      expect(seconds).toBeLessThan(30)
      return rest
    }

    const survivors = await killSourceRunner([0, 1, 2], "first")
    // New items, and the second kill once some of them are recorded: work is in flight on both sides.
    feed.setItems(items(0, M))
    await within(
      async () => (await recorded()) > N + 50,
      120_000,
      () => "the second batch of items flowing"
    )
    await killSourceRunner(survivors, "second")

    await within(
      async () => (await recorded()) >= M && deliveries.size >= M,
      180_000,
      () => `all ${M} items recorded and delivered (${deliveries.size} delivered)`
    )
    const rows = await query<{ reference: string; version: number }>("SELECT reference, version FROM warden_items")
    expect(rows).toHaveLength(M)
    expect(new Set(rows.map((r) => r.reference)).size).toBe(M)
    expect(rows.every((r) => Number(r.version) === 1)).toBe(true)
    expect(deliveries.size).toBe(M)
    console.log(`webhook: ${deliveries.size} verdicts, ${duplicates()} duplicate deliveries (in flight at the kills)`)
    // Delivering a sink batch and marking it delivered go together; a kill between the two repeats that
    // one batch at most, so two kills repeat two batches at most.
    expect(duplicates()).toBeLessThanOrEqual(2 * SINK_BATCH)
  }, 480_000)

  it("the killed runners, restarted, take their share of the shards back and work again", async () => {
    expect(victims).toHaveLength(2)
    for (const v of victims) {
      const r = runners[v]!
      r.daemon = startDaemon(r.config, { WARDEN_LOG_LEVEL: "warning" })
    }
    await within(
      () => holdEverything([0, 1, 2]),
      150_000,
      () => "the restarted runners to hold shards again"
    )
    const before = duplicates()
    feed.setItems(items(0, M + 300))
    await within(
      async () => (await Promise.all(victims.map(async (v) => (await self(v))?.items ?? 0))).every((n) => n > 0),
      80_000,
      () => "both restarted runners to process items"
    )
    await within(
      async () => deliveries.size >= M + 300,
      80_000,
      () => `all ${M + 300} delivered (${deliveries.size})`
    )
    expect(duplicates()).toBe(before)
  }, 300_000)

  it("SIGTERM of the source's runner: it hands its shards over and exits 0, no delivery repeats, no redelivery storm", async () => {
    const live = [0, 1, 2].filter(running)
    expect(live).toHaveLength(3)
    const leaving = await sourceRunner(live)
    expect(leaving).toBeGreaterThanOrEqual(0)
    const total = M + 900
    const analysedBefore = await analysed()
    const delivered = deliveries.size
    const duplicatesBefore = duplicates()
    feed.setItems(items(0, total))
    // The leave happens with work in flight: some of the new items recorded, not all.
    await within(
      async () => deliveries.size >= delivered + 150,
      80_000,
      () => "the new items flowing"
    )
    // (it has started: it holds shards; `stop` would wait for an info line this log level hides)
    runners[leaving]!.daemon.child.kill("SIGTERM")
    const exit = await runners[leaving]!.daemon.exited
    expect(exit.code).toBe(0)
    const stayed = live.filter((i) => i !== leaving)
    await within(
      () => holdEverything(stayed),
      60_000,
      () => "the two others to hold every shard and the source"
    )
    await within(
      async () => deliveries.size >= total,
      90_000,
      () => `all ${total} delivered (${deliveries.size})`
    )
    expect(await recorded()).toBe(total)
    expect(duplicates()).toBe(duplicatesBefore)
    const again = (await analysed()) - analysedBefore - (total - delivered)
    console.log(`graceful leave: ${again} items analysed again (batches the leaving runner was working on)`)
    expect(again).toBeLessThanOrEqual(SOURCE_BATCH)
  }, 300_000)
})
