/**
 * Three `warden run` processes on one fresh PostgreSQL database form one effect/cluster: the work of
 * one busy source reaches every runner (its partitions spread over the runners' shards), and a kill -9
 * of the runner holding the source's singleton loses nothing: the survivors take its shards and the
 * singleton over, every item gets exactly one verdict record, every verdict reaches the webhook, and
 * only deliveries in flight at the kill repeat (counted and printed).
 */
import { mkdtempSync, mkdirSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Sandbox } from "@warden/sandbox"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonProcess, freePort, startDaemon, waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { startFeedServer } from "./support/FeedServer.ts"
import { freshDatabase } from "./support/Postgres.ts"

const N = 3000
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const TOKEN = "cluster-test-admin-token"

interface RunnerView {
  readonly address: string
  readonly healthy: boolean | null
  readonly stale: boolean
  readonly shards: number
  readonly singletons: ReadonlyArray<string>
  readonly items: number
}
interface Overview {
  readonly mode: string
  readonly self: string
  readonly runners: ReadonlyArray<RunnerView>
}

describe("three runners on one PostgreSQL database", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let pg: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>
  const deliveries = new Map<string, number>()
  let webhook: ReturnType<typeof createHttpServer>
  let webhookUrl = ""
  const daemons: Array<DaemonProcess> = []

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
  })
  afterAll(async () => {
    for (const d of daemons) if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill("SIGKILL")
    await Promise.all(daemons.map((d) => d.exited))
    await pg?.dispose()
    await db?.drop()
    await new Promise<void>((resolve) => webhook.close(() => resolve()))
    await feed?.close()
    await sandbox?.close()
  })

  const query = <A extends object>(text: string) =>
    pg.runPromise(Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.unsafe<A>(text)))
  const recorded = async () => Number((await query<{ n: string }>("SELECT COUNT(*) AS n FROM warden_items"))[0]!.n)
  const overview = async (adminPort: number): Promise<Overview | undefined> => {
    try {
      const res = await fetch(`http://127.0.0.1:${adminPort}/api/cluster`, {
        headers: { authorization: `Bearer ${TOKEN}` }
      })
      return res.ok ? ((await res.json()) as Overview) : undefined
    } catch {
      return undefined
    }
  }

  it("shares one source's work, survives kill -9 of the singleton's runner, one verdict per item", async () => {
    const runners = await Promise.all(
      [0, 1, 2].map(async (i) => ({ i, admin: await freePort(), cluster: await freePort() }))
    )
    for (const r of runners) {
      const dir = join(mkdtempSync(join(tmpdir(), "warden-cluster-")), `runner-${r.i}`)
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
        admin: { listen: `127.0.0.1:${r.admin}`, token: TOKEN },
        cluster: { runnerAddress: `127.0.0.1:${r.cluster}` },
        log: { format: "json" }
      })
      daemons.push(startDaemon(config, { WARDEN_LOG_LEVEL: "warning" }))
    }
    // The cluster has formed: three healthy runners, all 300 shards held, before any item exists.
    await waitFor(
      async () => {
        const view = await overview(runners[0]!.admin)
        return (
          view !== undefined &&
          view.runners.filter((r) => r.healthy === true && !r.stale && r.shards > 0).length === 3 &&
          view.runners.reduce((a, r) => a + r.shards, 0) === 300
        )
      },
      30_000,
      `three runners sharing the shards\n${daemons.map((d) => d.stderr().slice(-1500)).join("\n---\n")}`
    )
    const formed = (await overview(runners[0]!.admin))!
    expect(formed.mode).toBe("cluster")
    expect(formed.runners.flatMap((r) => r.singletons).filter((s) => s === "source:feed")).toHaveLength(1)

    feed.setItems(
      Array.from({ length: N }, (_, i) => ({
        guid: `c-${i}`,
        title: `Comment ${i}`,
        description: i % 7 === 0 ? `You are an idiot, number ${i}` : `A perfectly fine comment number ${i}`
      }))
    )

    // Each runner does a real share while all three run.
    await waitFor(
      async () => (await recorded()) >= N / 3,
      40_000,
      `a third of the items recorded\n${daemons.map((d) => d.stderr().slice(-3000)).join("\n---\n")}`
    )
    // Each runner reports its count every 2 s, so one snapshot can show a runner's count seconds old
    // (seen under load: 577 / 75 / 203): wait until every runner's report shows a real share.
    let running: Overview | undefined
    let shares: Array<number> = []
    await waitFor(
      async () => {
        running = await overview(runners[1]!.admin)
        shares = running?.runners.map((r) => r.items) ?? []
        console.log(`items per runner: ${shares.join(" / ")}`)
        const total = shares.reduce((a, b) => a + b, 0)
        return (
          running?.runners.filter((r) => r.singletons.includes("source:feed")).length === 1 &&
          shares.length === 3 &&
          shares.every((share) => share > total * 0.1)
        )
      },
      15_000,
      "every runner doing a share of the work (the counts polled are printed above)"
    )

    // kill -9 the runner running the source singleton.
    const holder = running!.runners.find((r) => r.singletons.includes("source:feed"))!
    const victim = runners.findIndex((r) => holder.address === `127.0.0.1:${r.cluster}`)
    expect(victim).toBeGreaterThanOrEqual(0)
    const killedAt = Date.now()
    daemons[victim]!.child.kill("SIGKILL")
    await daemons[victim]!.exited
    const survivor = runners.find((_, i) => i !== victim)!

    // The survivors take over: the singleton and every shard on the two live runners.
    await waitFor(
      async () => {
        const view = await overview(survivor.admin)
        const live = view?.runners.filter((r) => !r.stale && r.healthy !== false) ?? []
        return (
          live.length === 2 &&
          live.reduce((a, r) => a + r.shards, 0) === 300 &&
          live.some((r) => r.singletons.includes("source:feed"))
        )
      },
      // a ceiling for "it happens", not the target: how fast is a benchmark's question (9 s measured
      // at load 30; 16.7 s with two CI runs sharing the two cores)
      45_000,
      "the survivors to hold every shard and the source"
    )
    const takeover = (Date.now() - killedAt) / 1000
    console.log(`takeover after kill -9: ${takeover.toFixed(1)} s`)

    // Every item: one verdict record, delivered to the webhook.
    await waitFor(
      async () => (await recorded()) >= N && deliveries.size >= N,
      40_000,
      `all ${N} items recorded and delivered (${deliveries.size} delivered)`
    )
    const rows = await query<{ reference: string; version: number }>("SELECT reference, version FROM warden_items")
    expect(rows).toHaveLength(N)
    expect(new Set(rows.map((r) => r.reference)).size).toBe(N)
    expect(rows.every((r) => Number(r.version) === 1)).toBe(true)
    const duplicates = [...deliveries.values()].reduce((a, n) => a + n - 1, 0)
    console.log(`webhook: ${deliveries.size} verdicts, ${duplicates} duplicate deliveries (in flight at the kill)`)
    expect(deliveries.size).toBe(N)

    for (const [i, d] of daemons.entries()) if (i !== victim) d.child.kill("SIGTERM")
    for (const [i, d] of daemons.entries()) if (i !== victim) expect((await d.exited).code).toBe(0)
  }, 120_000)
})
