/**
 * The `http` push source (issue 39) under load from autocannon, against the daemon and the sandbox in
 * their own processes, the sandbox answering each analysis in `--latency` ms (50) within a quota of
 * `--quota` requests/s (100) that the daemon's limiter also knows.
 *
 * - `check`: `POST /v1/check` of a new item each time, at half the quota and at the quota: the latency
 *   the daemon adds over the typed client calling the API, p50 and p99, against the floor measured in the
 *   same run (the same load, from the same generator, on a server calling the Warden v1 client:
 *   support/client-floor-server.ts), beside the API's own (the same load on the sandbox's
 *   `POST /analyze/v1/text`), and the daemon's CPU per check.
 * - `items`: `POST /v1/items` (one item each) sustained at the quota for `--seconds`, with a burst of 10x
 *   the quota for 1 s in the middle: the 202s' p99 while the backlog drains at the quota (beside its floor:
 *   the same load on a server that answers 202 at once), the time the backlog took to drain, and the
 *   daemon's peak RSS.
 * - `accept` (only with `--case accept`, a diagnosis): the same load as `items` on a daemon whose limiter
 *   lets one analysis a second through, so that it accepts and hardly drains: the 202's own path (read,
 *   authenticate, decode, the intake's commit and fsync, answer) without the backlog's work beside it,
 *   and its CPU per 202.
 *
 * The load generator is autocannon at an even, fixed rate (support/paced-load.ts: why not its own
 * `overallRate`).
 *
 *   pnpm bench daemon-push
 *   node --conditions=@warden/source bench/daemon-push.ts [--source] [--case check|items|accept] [--quota 100] [--latency 50] [--seconds 10] [--shares 0.5,0.97] [--no-write]
 */
import { fork } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import {
  analyzeTextQuota,
  apiSection,
  CHANNEL,
  flag,
  has,
  loadAverage,
  option,
  machine,
  progress,
  sleep,
  cpuOf,
  KEY,
  startDaemon,
  startSandbox,
  tempDir,
  want,
  writeDocSection,
  writeResult
} from "./support/common.ts"
import { type PacedResult, paced, percentile } from "./support/paced-load.ts"
import { DatabaseSync } from "node:sqlite"

const quota = flag("quota", 100)
const latency = flag("latency", 50)
const seconds = flag("seconds", 10)
const TOKEN = "bench-token-of-the-push-client"

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

const sandbox = await startSandbox({ quotas: analyzeTextQuota(quota) })
await sandbox.setFaults({ stall: 1, stallMs: latency })
progress(`sandbox: quota ${quota} requests/s on analyzeText, answering in ${latency} ms; ${machine()}`)

/** A daemon with one `http` source on a free port, its limiter at the quota (or at `limiterRate`). */
const pushDaemon = async (name: string, limiterRate = quota) => {
  const dir = tempDir(name)
  const port = await freePort()
  const daemon = startDaemon(dir, {
    api: apiSection(sandbox.url, { analyzeText: { requestsPerSecond: limiterRate } }),
    state: { sqlite: join(dir, "state.db") },
    sources: [
      {
        id: "push",
        type: "http",
        channelId: CHANNEL,
        config: {
          listen: `127.0.0.1:${port}`,
          clients: [{ name: "bench", bearer: TOKEN }],
          check: { deadline: "5 seconds" }
        },
        rules: [{ name: "insults", when: { classifications: { anyOf: ["INSULT"] } }, actions: ["hide"] }]
      }
    ],
    sinks: [{ type: "jsonl", name: "out", path: join(dir, "verdicts.jsonl") }],
    admin: { listen: "127.0.0.1:0" },
    log: { format: "json", level: "warning" }
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (true) {
    const up = await fetch(`${url}/openapi.json`).then(
      (r) => r.ok,
      () => false
    )
    if (up) break
    if (Date.now() > deadline || daemon.exited()) throw new Error(`the listener did not open\n${daemon.stderr()}`)
    await sleep(100)
  }
  return { daemon, url, state: join(dir, "state.db") }
}

const ms = (n: number) => Number(n.toFixed(1))
/** A difference with its sign (a check can beat the floor's p99 in a short run). */
const signed = (n: number) => (n < 0 ? `${n}` : `+${n}`)
const json = { "content-type": "application/json" }

/** The one load generator of both sides (support/paced-load.ts): `rate` requests/s on `path`, a new reference each. */
const pushLoad = (url: string, path: string, rate: number, duration: number) =>
  paced({
    url,
    path,
    rate,
    seconds: duration,
    headers: { authorization: `Bearer ${TOKEN}`, ...json },
    body: (n) => JSON.stringify({ reference: `r-${n}`, text: `a comment to check, number ${n}` })
  })
/** The floor: the same load on the sandbox's own endpoint (the same body, the API key). */
const floorLoad = (rate: number, duration: number) =>
  paced({
    url: sandbox.url,
    path: "/analyze/v1/text",
    rate,
    seconds: duration,
    headers: { authorization: `ApiKey ${KEY}`, ...json },
    body: (n) => JSON.stringify({ channelId: CHANNEL, reference: `r-${n}`, text: `a comment to check, number ${n}` })
  })

/** A floor's server (bench/support/NAME) in its own process, once it listens: it sends its port. */
const floorServer = async (name: string, args: ReadonlyArray<string> = []) => {
  const child = fork(new URL(`./support/${name}`, import.meta.url).pathname, args, {
    execArgv: ["--conditions=@warden/source"]
  })
  const port = await new Promise<number>((resolve) => child.once("message", (m: { port: number }) => resolve(m.port)))
  return { child, url: `http://127.0.0.1:${port}` }
}

/**
 * The typed client's floor (the issue's "the typed client calling the sandbox directly"): the same load
 * on a server whose every request calls the Warden v1 client on the sandbox, its limiter at the same
 * quota (support/client-floor-server.ts). Returns the load's result and the server's CPU per call.
 */
const clientFloorLoad = async (rate: number, duration: number) => {
  const { child, url } = await floorServer("client-floor-server.ts", [sandbox.url, String(quota)])
  const load = (seconds: number) =>
    paced({
      url,
      path: "/analyze",
      rate,
      seconds,
      headers: json,
      body: (n) => JSON.stringify({ channelId: CHANNEL, reference: `r-${n}`, text: `a comment to check, number ${n}` })
    })
  await load(2) // warm-up
  const cpu0 = cpuOf(child.pid!)
  const result = await load(duration)
  const cpu = cpuOf(child.pid!) - cpu0
  child.disconnect()
  return { result, cpuMsPerCall: Number((cpu / Math.max(1, result.ok)).toFixed(2)) }
}

const checks: Array<Record<string, number | string>> = []
if (want("check")) {
  // "At the quota": 0.97 of it, under the 2% margin the daemon's limiter keeps below a configured quota.
  for (const share of (option("shares") ?? "0.5,0.97").split(",").map(Number)) {
    const rate = Math.round(quota * share)
    await floorLoad(rate, 2) // warm-up
    const sandboxCpu0 = cpuOf(sandbox.pid)
    const floor = await floorLoad(rate, seconds)
    const floorCpu = cpuOf(sandbox.pid) - sandboxCpu0
    progress(
      `API floor at ${rate}/s: p50 ${percentile(floor.latencies, 50)} ms, p99 ${percentile(floor.latencies, 99)} ms over ${floor.ok} calls (${floor.non2xx} not 2xx)`
    )
    const client = await clientFloorLoad(rate, seconds)
    progress(
      `typed client floor at ${rate}/s: p50 ${percentile(client.result.latencies, 50)} ms, p99 ${percentile(client.result.latencies, 99)} ms over ${client.result.ok} calls (${client.result.non2xx + client.result.errors} not 2xx); ${client.cpuMsPerCall} ms CPU per call`
    )
    const { daemon, url } = await pushDaemon("push-check")
    await pushLoad(url, "/v1/check", rate, 2) // warm-up
    const cpu0 = daemon.cpu()
    const answers0 = await sandbox.answers()
    const result = await pushLoad(url, "/v1/check", rate, seconds)
    const cpu = daemon.cpu() - cpu0
    const answers = await sandbox.answers()
    // the daemon's own calls the sandbox refused (429): a limiter that sent too early
    const refused = (answers["429"] ?? 0) - (answers0["429"] ?? 0)
    await daemon.stop()
    const p = (r: PacedResult, n: number) => percentile(r.latencies, n)
    const row = {
      rate,
      checks: result.ok,
      non2xx: result.non2xx + result.errors,
      late: result.late,
      apiRefused: refused,
      p50: p(result, 50),
      p99: p(result, 99),
      apiP50: p(floor, 50),
      apiP99: p(floor, 99),
      floorP50: p(client.result, 50),
      floorP99: p(client.result, 99),
      addedP50: ms(p(result, 50) - p(client.result, 50)),
      addedP99: ms(p(result, 99) - p(client.result, 99)),
      overApiP50: ms(p(result, 50) - p(floor, 50)),
      overApiP99: ms(p(result, 99) - p(floor, 99)),
      clientCpuMsPerCall: client.cpuMsPerCall,
      cpuMsPerCheck: Number((cpu / Math.max(1, result.ok)).toFixed(2)),
      sandboxCpuMsPerCall: Number((floorCpu / Math.max(1, floor.ok)).toFixed(2)),
      loadAverage: loadAverage()
    }
    checks.push(row)
    progress(
      `check at ${rate}/s: p50 ${row.p50} ms (${signed(row.addedP50)} over the typed client, ${signed(row.overApiP50)} over the API), p99 ${row.p99} ms (${signed(row.addedP99)}, ${signed(row.overApiP99)}); ${row.checks} checks, ${row.non2xx} not 2xx, ${row.late} over 1 s, ${row.apiRefused} API calls refused (429); ${row.cpuMsPerCheck} ms CPU per check; load ${row.loadAverage}`
    )
  }
}

/** The items load: `POST /v1/items` at the quota for the whole window, and a 10x burst of 1 s in its middle. */
const itemsWithBurst = async (url: string) => {
  const sustained = pushLoad(url, "/v1/items", quota, seconds)
  await sleep(Math.floor(seconds / 2) * 1000)
  const burst = await pushLoad(url, "/v1/items", quota * 10, 1)
  return { steady: await sustained, burst }
}

/** The 202's floor: the same load on a server that answers 202 and does nothing else (support/accept-server.ts). */
const acceptFloor = async () => {
  const { child, url } = await floorServer("accept-server.ts")
  await pushLoad(url, "/v1/items", quota, 2) // warm-up
  const result = await itemsWithBurst(url)
  child.disconnect()
  return result
}

let items: Record<string, number> | undefined
if (want("items")) {
  const floor = await acceptFloor()
  progress(
    `202 floor (a server answering 202 at once, the same load): p50 ${percentile(floor.steady.latencies, 50)} ms, p99 ${percentile(floor.steady.latencies, 99)} ms (burst p99 ${percentile(floor.burst.latencies, 99)} ms)`
  )
  const { daemon, url, state } = await pushDaemon("push-items")
  const count = (table: string) => {
    const db = new DatabaseSync(state, { readOnly: true })
    try {
      return Number((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n)
    } finally {
      db.close()
    }
  }
  const recorded = () => count("warden_items")
  await pushLoad(url, "/v1/items", quota, 2) // warm-up, recorded before the measured window
  while (count("warden_intake") > 0) await sleep(100)
  const before = recorded()
  const { steady, burst } = await itemsWithBurst(url)
  const posted = steady.ok + burst.ok
  const drainStart = performance.now()
  // drained: nothing left in the intake (every item accepted is recorded)
  while (count("warden_intake") > 0 && performance.now() - drainStart < 120_000) await sleep(200)
  const drained = (performance.now() - drainStart) / 1000
  items = {
    quota,
    sent: posted,
    non2xx: steady.non2xx + steady.errors + burst.non2xx + burst.errors,
    p50: percentile(steady.latencies, 50),
    p99: percentile(steady.latencies, 99),
    burstP50: percentile(burst.latencies, 50),
    burstP99: percentile(burst.latencies, 99),
    floorP50: percentile(floor.steady.latencies, 50),
    floorP99: percentile(floor.steady.latencies, 99),
    floorBurstP99: percentile(floor.burst.latencies, 99),
    recorded: recorded() - before,
    drainedAfterSeconds: Number(drained.toFixed(1)),
    peakRssMb: Math.round(daemon.peakRss() / 1024 / 1024),
    loadAverage: Number(loadAverage())
  }
  await daemon.stop()
  progress(
    `items at ${quota}/s with a 1 s burst at ${quota * 10}/s: 202 p50 ${items.p50} ms, p99 ${items.p99} ms (burst p99 ${items.burstP99} ms; floor p99 ${items.floorP99} ms, burst ${items.floorBurstP99} ms); ${items.recorded} recorded of ${posted} accepted (the backlog drained ${items.drainedAfterSeconds} s after the load); peak RSS ${items.peakRssMb} MB; load ${items.loadAverage}`
  )
}
let accept: Record<string, number> | undefined
// Only when asked: a diagnosis of the 202's path, not one of the issue's figures.
if (option("case") === "accept") {
  const { daemon, url } = await pushDaemon("push-accept", 1)
  await pushLoad(url, "/v1/items", quota, 2) // warm-up
  const cpu0 = daemon.cpu()
  const { steady, burst } = await itemsWithBurst(url)
  const cpu = daemon.cpu() - cpu0
  await daemon.stop()
  const accepted = steady.ok + burst.ok
  accept = {
    accepted,
    p50: percentile(steady.latencies, 50),
    p99: percentile(steady.latencies, 99),
    burstP50: percentile(burst.latencies, 50),
    burstP99: percentile(burst.latencies, 99),
    cpuMsPer202: Number((cpu / Math.max(1, accepted)).toFixed(2)),
    loadAverage: Number(loadAverage())
  }
  progress(
    `the 202's path alone (the limiter at 1/s: no drain), ${quota}/s with a 1 s burst at ${quota * 10}/s: p50 ${accept.p50} ms, p99 ${accept.p99} ms (burst p50 ${accept.burstP50} ms, p99 ${accept.burstP99} ms); ${accepted} accepted; ${accept.cpuMsPer202} ms CPU per 202; load ${accept.loadAverage}`
  )
}
await sandbox.close()

const result = {
  bench: "daemon-push",
  date: new Date().toISOString(),
  machine: machine(),
  loadAverage: loadAverage(),
  quota,
  latency,
  seconds,
  checks,
  items,
  ...(accept === undefined ? {} : { accept })
}
console.log(JSON.stringify(result))
writeResult("daemon-push", result)
if (!has("no-write") && !has("source") && checks.length > 0 && items !== undefined) {
  const i = items
  writeDocSection(
    "daemon-push",
    `## Daemon: the http push source (\`bench/daemon-push.ts\`)

Command: \`pnpm bench daemon-push\`. The sandbox answers each analysis in ${latency} ms within a quota of ${quota}
requests/s (the daemon's limiter set to it). One load generator for both sides: autocannon at an even, fixed rate
(bench/support/paced-load.ts: as many connections as requests a second, each sending one a second, started 1000/rate ms apart;
autocannon's own \`overallRate\` sends each second's share in a burst and its coordinated-omission correction adds
samples below each real one), a new reference per request, for ${seconds} s after a 2 s warm-up. The floor is the
issue's: the typed client calling the sandbox directly, that is the same load on a \`node:http\` server whose every
request calls \`AnalyzeV1.text\` of the Warden v1 client, its limiter at the same quota (bench/support/client-floor-server.ts:
what a service calling the API itself costs behind the same kind of HTTP hop as the daemon's listener). Beside it, the API
alone: the same load on the sandbox's own \`POST /analyze/v1/text\` (the same body, its API key). Both measured in the
same run just before the check. Measured ${result.date.slice(0, 10)} on ${result.machine}; the 1-minute load average next to each figure
(the machine is shared with other work).

\`POST /v1/check\` (a new item each time), at half the quota and at the quota (0.97 of it: the daemon's limiter paces
2% under a configured quota):

| rate | check p50 | floor p50 (typed client) | added p50 (target <= 5 ms) | API p50 | check p99 | floor p99 | added p99 (target <= 25 ms) | API p99 | CPU per check (daemon) | CPU per call (typed client) | CPU per call (sandbox) | load |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${checks.map((c) => `| ${c.rate}/s | ${c.p50} ms | ${c.floorP50} ms | ${c.addedP50} ms | ${c.apiP50} ms | ${c.p99} ms | ${c.floorP99} ms | ${c.addedP99} ms | ${c.apiP99} ms | ${c.cpuMsPerCheck} ms | ${c.clientCpuMsPerCall} ms | ${c.sandboxCpuMsPerCall} ms | ${c.loadAverage} |`).join("\n")}

\`POST /v1/items\` (one item each) at ${quota}/s for ${seconds} s with a 1 s burst at ${quota * 10}/s in the middle: 202
p50 ${i.p50} ms, p99 ${i.p99} ms (target < 20 ms; during the burst p50 ${i.burstP50} ms, p99 ${i.burstP99} ms). The floor, the same
load in the same run on a server that answers 202 at once and does nothing else (bench/support/accept-server.ts): p50
${i.floorP50} ms, p99 ${i.floorP99} ms (burst p99 ${i.floorBurstP99} ms). ${i.sent} items
accepted (202), ${i.recorded} recorded in the window and after it (the warm-up's excluded; more than accepted: autocannon does not count the answers
still in flight when its duration ends), the backlog drained
${i.drainedAfterSeconds} s after the load ended; ${i.non2xx} answers not 2xx; the daemon's peak RSS ${i.peakRssMb} MB (budget 256 MB); load ${i.loadAverage}.`
  )
}
process.exit(0)
