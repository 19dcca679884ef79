/**
 * Several daemons on one PostgreSQL database (issue 13): `warden run` processes as runners of one
 * effect/cluster, the sandbox in its own process, a webhook sink counted here.
 *
 * - takeover: three runners and a feed that grows at `--feed-rate` items/s; each round kills -9 the
 *   runner running the source singleton and measures, on the survivors' own live view
 *   (`GET /api/cluster`, their `self` entry: no report lag), the time until they hold all 300 shards
 *   and the time until one runs the source again; the longest pause in webhook deliveries; then
 *   restarts the victim and measures until it holds shards again (rejoin). Median of `--rounds`.
 * - throughput: 1, 2 and 3 runners on a fresh database each, one static feed of `--items` items:
 *   items/s from the first delivery to the last, process CPU per item (all runners together, and per
 *   runner over the items its entities processed), the sandbox's CPU per item.
 * - quota: three runners, one API key, the sandbox enforcing `--rate` requests/s (burst 5) on
 *   `analyzeText` for every organisation, no `api.quotas` (each runner learns from its 429s): the
 *   sandbox's own counts over `--quota-seconds`, accepted/Q and the share answered 429 after the
 *   first 15 s.
 *
 *   node --conditions=@warden/source bench/daemon-cluster.ts [--source] [--case takeover|throughput|quota]
 *     [--rounds 5] [--items 6000] [--feed-rate 150] [--rate 80] [--quota-seconds 45] [--no-write]
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg } from "node:os"
import { join } from "node:path"
import {
  analyzeTextQuota,
  apiSection,
  CHANNEL,
  cpuOf,
  feedXml,
  flag,
  has,
  machine,
  median,
  progress,
  serve,
  sleep,
  startDaemon,
  startSandbox,
  tempDir,
  want,
  writeDocSection,
  writeResult
} from "./support/common.ts"

const ROUNDS = flag("rounds", 5)
const ITEMS = flag("items", 6000)
const FEED_RATE = flag("feed-rate", 150)
const Q = flag("rate", 80)
const QUOTA_SECONDS = flag("quota-seconds", 45)
const TOKEN = "bench-cluster-admin-token"
const SHARDS = 300
const PG_ADMIN = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"

// ------------------------------------------------------------------------------------ PostgreSQL

const psql = (url: string, statement: string): string =>
  execFileSync("psql", [url, "-X", "-Atqc", statement], { encoding: "utf8" }).trim()

const freshDatabase = () => {
  const name = `warden_bench_${randomBytes(5).toString("hex")}`
  psql(PG_ADMIN, `CREATE DATABASE ${name}`)
  const url = new URL(PG_ADMIN)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => psql(PG_ADMIN, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

// ------------------------------------------------------------------------------------ the webhook

/** Counts deliveries by `X-Warden-Delivery`, with the time of each first delivery. */
const webhook = async () => {
  const seen = new Map<string, number>()
  const times: Array<number> = []
  let total = 0
  const server = createServer((req, res) => {
    const id = String(req.headers["x-warden-delivery"])
    total++
    const n = seen.get(id) ?? 0
    seen.set(id, n + 1)
    if (n === 0) times.push(performance.now())
    req.resume()
    req.on("end", () => res.writeHead(204).end())
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    unique: () => seen.size,
    duplicates: () => total - seen.size,
    times,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}

// ------------------------------------------------------------------------------------ runners

interface RunnerView {
  readonly address: string
  readonly shards: number
  readonly singletons: ReadonlyArray<string>
  readonly items: number
}
interface Overview {
  readonly self: string
  readonly runners: ReadonlyArray<RunnerView>
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    })
  })

/**
 * One runner's config: the sandbox (with the client-side `quotas`, if any), the database, one RSS
 * source, the webhook sink, its own ports.
 */
const runnerConfig = (
  sandboxUrl: string,
  dbUrl: string,
  feedUrl: string,
  hookUrl: string,
  ports: { admin: number; cluster: number },
  quotas: Record<string, unknown> = {}
) => ({
  api: apiSection(sandboxUrl, quotas),
  state: { postgres: dbUrl },
  sources: [
    {
      id: "feed",
      type: "rss",
      channelId: CHANNEL,
      config: { feeds: [{ url: feedUrl, id: "f" }], pollInterval: "100 millis", maxItemsPerPoll: 100_000 }
    }
  ],
  sinks: [{ type: "webhook", url: hookUrl }],
  admin: { listen: `127.0.0.1:${ports.admin}`, token: TOKEN },
  cluster: { runnerAddress: `127.0.0.1:${ports.cluster}` },
  log: { format: "json", level: "warning" }
})

/** A runner process with its ports; `self()` is its own live entry of `GET /api/cluster`. */
const runner = async (config: (ports: { admin: number; cluster: number }) => unknown, name: string) => {
  const ports = { admin: await freePort(), cluster: await freePort() }
  const dir = join(tempDir("cluster"), name)
  mkdirSync(dir)
  const start = () => startDaemon(dir, config(ports))
  let proc = start()
  const overview = async (): Promise<Overview | undefined> => {
    try {
      const res = await fetch(`http://127.0.0.1:${ports.admin}/api/cluster`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: AbortSignal.timeout(2000)
      })
      return res.ok ? ((await res.json()) as Overview) : undefined
    } catch {
      return undefined
    }
  }
  return {
    address: `127.0.0.1:${ports.cluster}`,
    get process() {
      return proc
    },
    restart: () => {
      proc = start()
    },
    self: async () => {
      const view = await overview()
      return view?.runners.find((r) => r.address === view.self)
    }
  }
}
type Runner = Awaited<ReturnType<typeof runner>>

/** `n` runners, started one after the other (so no two are given the same free port). */
const startRunners = async (n: number, config: (ports: { admin: number; cluster: number }) => unknown) => {
  const out: Array<Runner> = []
  for (let i = 0; i < n; i++) out.push(await runner(config, `runner-${i}`))
  return out
}

/** Stops the runners (SIGTERM), then the feed and the webhook, and drops the database. */
const tearDown = async (
  runners: ReadonlyArray<Runner>,
  feed: { close: () => Promise<void> },
  hook: { close: () => Promise<void> },
  db: { drop: () => unknown }
) => {
  for (const r of runners) await r.process.stop()
  await feed.close()
  await hook.close()
  db.drop()
}

/** Polls every `everyMs` until `check` holds; the time it took (ms), or fails after `timeoutMs`. */
const until = async (check: () => Promise<boolean>, timeoutMs: number, what: string, everyMs = 100) => {
  const started = performance.now()
  while (performance.now() - started < timeoutMs) {
    if (await check()) return performance.now() - started
    await sleep(everyMs)
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
}

/** All of `runners` live, holding every shard between them (fails when one has exited). */
const formed = async (runners: ReadonlyArray<Runner>) => {
  const dead = runners.find((r) => r.process.exited())
  if (dead !== undefined) throw new Error(`runner ${dead.address} exited:\n${dead.process.stderr().slice(-3000)}`)
  const selves = await Promise.all(runners.map((r) => r.self()))
  return (
    selves.every((s) => s !== undefined && s.shards > 0) && selves.reduce((a, s) => a + (s?.shards ?? 0), 0) === SHARDS
  )
}

const r1 = (n: number) => Math.round(n * 10) / 10
const r3 = (n: number) => Math.round(n * 1000) / 1000
const load = () => r1(loadavg()[0]!)

/** Longest gap between first deliveries within [from, to] (ms, performance.now() time). */
const longestGap = (times: ReadonlyArray<number>, from: number, to: number) => {
  let last = from
  let gap = 0
  for (const t of times) {
    if (t < from) continue
    if (t > to) break
    gap = Math.max(gap, t - last)
    last = t
  }
  return Math.max(gap, to - last)
}

const results: Record<string, unknown> = { machine: machine() }

const sandbox = await startSandbox()

// ------------------------------------------------------------------------------------ takeover

if (want("takeover")) {
  progress(`takeover: 3 runners, feed growing at ${FEED_RATE} items/s, ${ROUNDS} kill -9 rounds`)
  const db = freshDatabase()
  const hook = await webhook()
  const began = performance.now()
  // The newest 2,000 items of a feed that grows at FEED_RATE items/s: a steady stream of new work.
  const feed = await serve(() => feedXml(1 + Math.floor(((performance.now() - began) / 1000) * FEED_RATE), 2000))
  const runners = await startRunners(3, (p) => runnerConfig(sandbox.url, db.url, feed.url, hook.url, p))
  const rounds: Array<Record<string, number>> = []
  try {
    await until(() => formed(runners), 240_000, "three runners sharing the shards", 250)
    for (let round = 1; round <= ROUNDS; round++) {
      // work flowing on every runner before the kill
      const before = hook.unique()
      await until(async () => hook.unique() > before + FEED_RATE, 30_000, "deliveries before the kill")
      let holder: Runner | undefined
      await until(
        async () => {
          for (const r of runners) if ((await r.self())?.singletons.includes("source:feed")) holder = r
          return holder !== undefined
        },
        20_000,
        "the source's runner"
      )
      const victim = holder!
      const survivors = runners.filter((r) => r !== victim)
      const loadAtKill = load()
      const killedAt = performance.now()
      process.kill(victim.process.pid, "SIGKILL")
      await until(async () => victim.process.exited(), 5000, "the killed runner to exit", 10)
      let shardsAt = 0
      let sourceAt = 0
      let unhealthyAt = 0
      await until(
        async () => {
          const selves = await Promise.all(survivors.map((r) => r.self()))
          const now = performance.now() - killedAt
          // --diag: when effect/cluster's table stops listing the victim as healthy
          if (has("diag") && unhealthyAt === 0) {
            const row = psql(db.url, `SELECT healthy FROM cluster_runners WHERE address = '${victim.address}'`)
            if (row !== "t") unhealthyAt = now
          }
          if (shardsAt === 0 && selves.reduce((a, s) => a + (s?.shards ?? 0), 0) === SHARDS) shardsAt = now
          if (sourceAt === 0 && selves.some((s) => s?.singletons.includes("source:feed") === true)) sourceAt = now
          return shardsAt > 0 && sourceAt > 0
        },
        60_000,
        "the survivors to hold every shard and the source"
      )
      // deliveries resume: the longest pause from 2 s before the kill until 3 s after the takeover
      const takeoverAt = killedAt + Math.max(shardsAt, sourceAt)
      await sleep(3000)
      const gap = longestGap(hook.times, killedAt - 2000, takeoverAt + 3000)
      victim.restart()
      const rejoinStarted = performance.now()
      // from the moment the restarted process answers (its start-up, loading Node modules, is not the cluster's)
      await until(async () => (await victim.self()) !== undefined, 120_000, "the restarted runner to answer", 100)
      const rejoin = await until(
        async () => (await victim.self())?.shards !== undefined && (await formed(runners)),
        90_000,
        "the restarted runner to hold shards again",
        250
      )
      const out = {
        round,
        shardsMovedS: r1(shardsAt / 1000),
        sourceRestartedS: r1(sourceAt / 1000),
        longestDeliveryPauseS: r1(gap / 1000),
        rejoinS: r1(rejoin / 1000),
        restartS: r1((performance.now() - rejoinStarted) / 1000),
        ...(has("diag") ? { unhealthyS: r1(unhealthyAt / 1000) } : {}),
        load: loadAtKill
      }
      progress(JSON.stringify(out))
      rounds.push(out)
    }
  } finally {
    await tearDown(runners, feed, hook, db)
  }
  const pick = (k: string) => rounds.map((r) => r[k]!)
  results.takeover = {
    rounds,
    medianShardsMovedS: median(pick("shardsMovedS")),
    medianSourceRestartedS: median(pick("sourceRestartedS")),
    medianTakeoverS: median(rounds.map((r) => Math.max(r.shardsMovedS!, r.sourceRestartedS!))),
    medianLongestPauseS: median(pick("longestDeliveryPauseS")),
    medianRejoinS: median(pick("rejoinS")),
    delivered: hook.unique(),
    duplicateDeliveries: hook.duplicates()
  }
  progress(JSON.stringify({ ...(results.takeover as object), rounds: undefined }))
}

// ------------------------------------------------------------------------------------ throughput

if (want("throughput")) {
  const out: Array<Record<string, unknown>> = []
  for (const n of [1, 2, 3]) {
    progress(`throughput: ${n} runner(s), ${ITEMS} items`)
    const db = freshDatabase()
    const hook = await webhook()
    let published = false
    const full = feedXml(ITEMS)
    const empty = feedXml(0)
    const feed = await serve(() => (published ? full : empty))
    const runners = await startRunners(n, (p) => runnerConfig(sandbox.url, db.url, feed.url, hook.url, p))
    try {
      await until(() => formed(runners), 240_000, `${n} runner(s) sharing the shards`, 250)
      await sleep(2000)
      const cpu0 = runners.map((r) => cpuOf(r.process.pid))
      const items0 = await Promise.all(runners.map(async (r) => (await r.self())?.items ?? 0))
      const sandboxCpu0 = cpuOf(sandbox.pid)
      const loadAtStart = load()
      published = true
      const started = performance.now()
      await until(async () => hook.unique() >= ITEMS, 300_000, `${ITEMS} deliveries`, 100)
      const elapsed = (hook.times[hook.times.length - 1]! - hook.times[0]!) / 1000
      const cpu = runners.map((r, i) => cpuOf(r.process.pid) - cpu0[i]!)
      const items = (await Promise.all(runners.map(async (r) => (await r.self())?.items ?? 0))).map(
        (x, i) => x - items0[i]!
      )
      const totalCpu = cpu.reduce((a, b) => a + b, 0)
      const row = {
        runners: n,
        itemsPerS: Math.round(ITEMS / elapsed),
        wallS: r1((performance.now() - started) / 1000),
        cpuMsPerItem: r3(totalCpu / ITEMS),
        // per runner: CPU over the items its entities processed (the source's runner also reads the feed
        // and sends every batch; the sink singleton's runner delivers every verdict)
        perRunner: runners.map((_, i) => ({
          items: items[i],
          cpuS: r1(cpu[i]! / 1000),
          cpuMsPerItem: items[i]! > 0 ? r3(cpu[i]! / items[i]!) : null
        })),
        sandboxCpuMsPerItem: r3((cpuOf(sandbox.pid) - sandboxCpu0) / ITEMS),
        duplicates: hook.duplicates(),
        load: loadAtStart
      }
      progress(JSON.stringify(row))
      out.push(row)
    } finally {
      await tearDown(runners, feed, hook, db)
    }
  }
  results.throughput = out
}

// ------------------------------------------------------------------------------------ quota

/**
 * One quota run: three runners on one key against the sandbox's quota Q; `perRunner` sets
 * `api.quotas.analyzeText` on each (undefined: none, each learns from its 429s). The backlog is
 * published once the three hold the shards; counted from the first answer.
 */
const quotaRun = async (perRunner: number | undefined) => {
  await sandbox.setQuotas(analyzeTextQuota(Q, 5))
  const db = freshDatabase()
  const hook = await webhook()
  let published = false
  const backlog = feedXml(Math.ceil(Q * QUOTA_SECONDS * 3))
  const empty = feedXml(0)
  const feed = await serve(() => (published ? backlog : empty))
  const quotas = perRunner === undefined ? {} : analyzeTextQuota(perRunner, 5)["*"]
  const runners = await startRunners(3, (p) => runnerConfig(sandbox.url, db.url, feed.url, hook.url, p, quotas))
  try {
    await until(() => formed(runners), 240_000, "three runners sharing the shards", 250)
    const base = await sandbox.answers()
    const counts = async () => {
      const a = await sandbox.answers()
      return { ok: (a["200"] ?? 0) - (base["200"] ?? 0), refused: (a["429"] ?? 0) - (base["429"] ?? 0) }
    }
    published = true
    await until(async () => (await counts()).ok > 0, 60_000, "the first answer", 50)
    const loadAtStart = load()
    const t0 = performance.now()
    const samples: Array<{ t: number; ok: number; refused: number }> = []
    while (performance.now() - t0 < QUOTA_SECONDS * 1000) {
      samples.push({ t: (performance.now() - t0) / 1000, ...(await counts()) })
      await sleep(1000)
    }
    const at = (s: number) => samples.reduce((best, x) => (Math.abs(x.t - s) < Math.abs(best.t - s) ? x : best))
    const a = at(15)
    const b = samples[samples.length - 1]!
    const steady = { ok: b.ok - a.ok, refused: b.refused - a.refused, seconds: b.t - a.t }
    const selves = await Promise.all(runners.map((r) => r.self()))
    const out = {
      q: Q,
      perRunner: perRunner ?? null,
      acceptedOverQ: r3(steady.ok / steady.seconds / Q),
      share429: r3(steady.refused / Math.max(1, steady.ok + steady.refused)),
      share429Whole: r3(b.refused / Math.max(1, b.ok + b.refused)),
      first15s: { ok: a.ok, refused: a.refused },
      itemsPerRunner: selves.map((s) => s?.items ?? 0),
      perSecondOk: samples.map((x, i) => (i === 0 ? x.ok : x.ok - samples[i - 1]!.ok)),
      duplicates: hook.duplicates(),
      load: loadAtStart
    }
    progress(JSON.stringify({ ...out, perSecondOk: undefined }))
    return out
  } finally {
    await sandbox.setQuotas({})
    await tearDown(runners, feed, hook, db)
  }
}

if (want("quota")) {
  progress(`quota: 3 runners, one key, sandbox quota ${Q}/s (burst 5), ${QUOTA_SECONDS} s: learnt, then Q/3 each`)
  results.quota = { learnt: await quotaRun(undefined), divided: await quotaRun(Math.floor(Q / 3)) }
}

await sandbox.close()
writeResult("daemon-cluster", results)

// ------------------------------------------------------------------------------------ the doc

if (!has("no-write") && results.takeover !== undefined && results.throughput !== undefined) {
  const t = results.takeover as any
  const th = results.throughput as Array<any>
  writeDocSection(
    "daemon-cluster",
    `## Several daemons on one PostgreSQL (\`bench/daemon-cluster.ts\`)

\`node --conditions=@warden/source bench/daemon-cluster.ts${has("source") ? " --source" : ""}\` on ${machine()},
load average ${[...new Set([...t.rounds.map((r: any) => r.load), ...th.map((r) => r.load)])].join(" / ")} during the run
(two cores shared with other work: figures are what this machine gave, not a ceiling).

Takeover after \`kill -9\` of the runner running the source (three runners, a feed growing at ${FEED_RATE} items/s),
${ROUNDS} rounds, each followed by a restart of the killed runner:

| | median | all rounds |
|---|---|---|
| survivors hold all 300 shards | ${t.medianShardsMovedS} s | ${t.rounds.map((r: any) => r.shardsMovedS).join(", ")} |
| source singleton running again | ${t.medianSourceRestartedS} s | ${t.rounds.map((r: any) => r.sourceRestartedS).join(", ")} |
| longest pause in webhook deliveries | ${t.medianLongestPauseS} s | ${t.rounds.map((r: any) => r.longestDeliveryPauseS).join(", ")} |
| restarted runner holds shards again | ${t.medianRejoinS} s | ${t.rounds.map((r: any) => r.rejoinS).join(", ")} |

${t.delivered} verdicts delivered, ${t.duplicateDeliveries} duplicate webhook deliveries over the ${ROUNDS} kills.

Throughput, ${ITEMS} items (one RSS source, webhook sink, sandbox without quota in its own process):

| runners | items/s | CPU ms/item (all runners) | per runner: items, CPU ms/item | sandbox CPU ms/item |
|---|---|---|---|---|
${th
  .map(
    (r) =>
      `| ${r.runners} | ${r.itemsPerS} | ${r.cpuMsPerItem} | ${r.perRunner.map((p: any) => `${p.items}, ${p.cpuMsPerItem}`).join(" / ")} | ${r.sandboxCpuMsPerItem} |`
  )
  .join("\n")}

On two cores shared by the runners, PostgreSQL and the sandbox, more runners cannot add items/s: read
the CPU per item to see what each runner costs and how the work splits.
`
  )
}

if (!has("no-write") && results.quota !== undefined) {
  const { learnt, divided } = results.quota as any
  const dividedName = `\`api.quotas\` ${divided.perRunner}/s each (Q/3)`
  const row = (name: string, r: any) =>
    `| ${name} | ${r.acceptedOverQ} | ${r1(r.share429 * 100)}% | ${r1(r.share429Whole * 100)}% | ${r.first15s.ok} / ${r.first15s.refused} | ${r.itemsPerRunner.join(" / ")} | ${r.load} |`
  writeDocSection(
    "daemon-cluster-quota",
    `### One organisation's quota shared by three runners (\`bench/daemon-cluster.ts --case quota\`)

\`node --conditions=@warden/source bench/daemon-cluster.ts${has("source") ? " --source" : ""} --case quota\` on ${machine()}:
three runners, one API key, the sandbox enforcing ${Q} requests/s (burst 5) on \`analyzeText\` for every
organisation, a backlog published once the three hold the shards, ${QUOTA_SECONDS} s from the first answer.
"After 15 s" is the rest of the run.

| limiter | accepted / Q after 15 s | answered 429 after 15 s | 429 whole run | first 15 s: 200 / 429 | items per runner | load |
|---|---|---|---|---|---|---|
${row("learnt (no `api.quotas`)", learnt)}
${row(dividedName, divided)}

Each runner's limiter learns Q from its first 429 and cuts its own rate at each 429 at or under it, then
probes upward again; with \`api.quotas\` each runner holds its own rate and burst.
`
  )
}
