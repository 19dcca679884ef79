/**
 * The `http` push source (issue 39) under load from autocannon, against the daemon and the sandbox in
 * their own processes, the sandbox answering each analysis in `--latency` ms (50) within a quota of
 * `--quota` requests/s (100) that the daemon's limiter also knows.
 *
 * - `check`: `POST /v1/check` of a new item each time, at half the quota and at the quota: the latency
 *   the daemon adds over the API's own, p50 and p99, against the floor measured in the same run (the
 *   typed client calling the sandbox directly at the same rate, bench/support/check-floor.ts), and the
 *   daemon's CPU per check.
 * - `items`: `POST /v1/items` (one item each) sustained at the quota for `--seconds`, with a burst of 10x
 *   the quota for 1 s in the middle: the 202s' p99 while the backlog drains at the quota, the time the
 *   backlog took to drain, and the daemon's peak RSS.
 *
 *   pnpm bench daemon-push
 *   node --conditions=@warden/source bench/daemon-push.ts [--source] [--case check|items] [--quota 100] [--latency 50] [--seconds 10] [--no-write]
 */
import { createServer } from "node:net"
import { join } from "node:path"
import autocannon from "autocannon"
import {
  analyzeTextQuota,
  apiSection,
  CHANNEL,
  childMessage,
  flag,
  has,
  loadAverage,
  machine,
  progress,
  sleep,
  startDaemon,
  startSandbox,
  tempDir,
  want,
  writeDocSection,
  writeResult
} from "./support/common.ts"
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

/** A daemon with one `http` source on a free port, its limiter at the quota. */
const pushDaemon = async (name: string) => {
  const dir = tempDir(name)
  const port = await freePort()
  const daemon = startDaemon(dir, {
    api: apiSection(sandbox.url, { analyzeText: { requestsPerSecond: quota } }),
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

let sent = 0
/** autocannon at `rate` requests/s for `duration` s on `path`, a new reference (and text) per request. */
const load = (url: string, path: string, rate: number, duration: number) =>
  autocannon({
    url,
    overallRate: rate,
    connections: Math.max(8, Math.ceil((rate * 4 * latency) / 1000)),
    duration,
    requests: [
      {
        method: "POST",
        path,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        setupRequest: (request) => {
          const n = sent++
          return { ...request, body: JSON.stringify({ reference: `r-${n}`, text: `a comment to check, number ${n}` }) }
        }
      }
    ]
  })

const ms = (n: number) => Number(n.toFixed(1))

const checks: Array<Record<string, number>> = []
if (want("check")) {
  // "At the quota": 0.97 of it, under the 2% margin both limiters (the floor's, the daemon's) keep below a
  // configured quota; offered at exactly the quota both queue, by amounts that measure the queue.
  for (const share of [0.5, 0.97]) {
    const rate = Math.round(quota * share)
    const floor = await childMessage<{ calls: number; p50: number; p99: number; cpuMicrosPerCall: number }>(
      "check-floor.ts",
      [sandbox.url, String(rate), String(seconds), String(quota)],
      ["--conditions=@warden/source"]
    )
    progress(`floor at ${rate}/s: p50 ${ms(floor.p50)} ms, p99 ${ms(floor.p99)} ms over ${floor.calls} calls`)
    const { daemon, url } = await pushDaemon("push-check")
    await load(url, "/v1/check", rate, 2) // warm-up
    const cpu0 = daemon.cpu()
    const result = await load(url, "/v1/check", rate, seconds)
    const cpu = daemon.cpu() - cpu0
    await daemon.stop()
    const row = {
      rate,
      checks: result.requests.total,
      non2xx: result.non2xx,
      p50: result.latency.p50,
      p99: result.latency.p99,
      floorP50: ms(floor.p50),
      floorP99: ms(floor.p99),
      addedP50: ms(result.latency.p50 - floor.p50),
      addedP99: ms(result.latency.p99 - floor.p99),
      cpuMsPerCheck: Number((cpu / Math.max(1, result.requests.total)).toFixed(2)),
      floorCpuMsPerCall: Number((floor.cpuMicrosPerCall / 1000).toFixed(2))
    }
    checks.push(row)
    progress(
      `check at ${rate}/s: p50 ${row.p50} ms (+${row.addedP50}), p99 ${row.p99} ms (+${row.addedP99}); ${row.checks} checks, ${row.non2xx} not 2xx; ${row.cpuMsPerCheck} ms CPU per check`
    )
  }
}

let items: Record<string, number> | undefined
if (want("items")) {
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
  await load(url, "/v1/items", quota, 2) // warm-up, recorded before the measured window
  while (count("warden_intake") > 0) await sleep(100)
  const before = recorded()
  const half = Math.floor(seconds / 2)
  // the sustained load for the whole window, and a 10x burst of 1 s in its middle
  const sustained = load(url, "/v1/items", quota, seconds)
  await sleep(half * 1000)
  const burst = await load(url, "/v1/items", quota * 10, 1)
  const steady = await sustained
  const posted = steady["2xx"] + burst["2xx"]
  const drainStart = performance.now()
  // drained: nothing left in the intake (every item accepted is recorded)
  while (count("warden_intake") > 0 && performance.now() - drainStart < 120_000) await sleep(200)
  const drained = (performance.now() - drainStart) / 1000
  items = {
    quota,
    sent: posted,
    non2xx: steady.non2xx + burst.non2xx,
    p50: steady.latency.p50,
    p99: steady.latency.p99,
    burstP99: burst.latency.p99,
    recorded: recorded() - before,
    drainedAfterSeconds: Number(drained.toFixed(1)),
    peakRssMb: Math.round(daemon.peakRss() / 1024 / 1024)
  }
  await daemon.stop()
  progress(
    `items at ${quota}/s with a 1 s burst at ${quota * 10}/s: 202 p50 ${items.p50} ms, p99 ${items.p99} ms (burst p99 ${items.burstP99} ms); ${items.recorded} recorded of ${posted} accepted (the backlog drained ${items.drainedAfterSeconds} s after the load); peak RSS ${items.peakRssMb} MB`
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
  items
}
console.log(JSON.stringify(result))
writeResult("daemon-push", result)
if (!has("no-write") && !has("source") && checks.length > 0 && items !== undefined) {
  const i = items
  writeDocSection(
    "daemon-push",
    `## Daemon: the http push source (\`bench/daemon-push.ts\`)

Command: \`pnpm bench daemon-push\`. The sandbox answers each analysis in ${latency} ms within a quota of ${quota}
requests/s (the daemon's limiter set to it); autocannon sends each request with a new reference, at a fixed rate
(latencies corrected for coordinated omission), for ${seconds} s after a 2 s warm-up. The floor is the typed client
calling the sandbox directly at the same rate, measured in the same run. Measured ${result.date.slice(0, 10)} on
${result.machine}, load average ${result.loadAverage} at the end (the machine shared with other work).

\`POST /v1/check\` (a new item each time), at half the quota and at the quota (0.97 of it: both limiters pace 2% under
a configured quota, and offered at exactly the quota both would queue):

| rate | check p50 | floor p50 | added p50 (target <= 5 ms) | check p99 | floor p99 | added p99 (target <= 25 ms) | CPU per check (daemon) | CPU per call (floor) |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${checks.map((c) => `| ${c.rate}/s | ${c.p50} ms | ${c.floorP50} ms | ${c.addedP50} ms | ${c.p99} ms | ${c.floorP99} ms | ${c.addedP99} ms | ${c.cpuMsPerCheck} ms | ${c.floorCpuMsPerCall} ms |`).join("\n")}

\`POST /v1/items\` (one item each) at ${quota}/s for ${seconds} s with a 1 s burst at ${quota * 10}/s in the middle: 202
p50 ${i.p50} ms, p99 ${i.p99} ms (target < 20 ms; during the burst ${i.burstP99} ms); ${i.sent} items accepted (202), ${i.recorded}
recorded in the window and after it (the warm-up's excluded), the backlog drained ${i.drainedAfterSeconds} s after the load ended; ${i.non2xx} answers not 2xx; the
daemon's peak RSS ${i.peakRssMb} MB (budget 256 MB).`
  )
}
process.exit(0)
