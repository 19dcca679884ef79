/**
 * Daemon throughput on a 50,000-item RSS feed (SQLite state, jsonl sink, sandbox without quota),
 * against two baselines measured in the same run:
 * - the sandbox's own capacity, measured just before by a separate load process (undici, 64 in flight);
 * - the script a user would write instead (fetch the feed, `fetch` each item at concurrency 32,
 *   append to a file: `bench/support/naive-client.ts`).
 * Then, once, the script and the daemon against an API 100 ms away (a second sandbox delaying every
 * answer; `--remote-items N`, 3,000 by default, 0 to skip). Then legacy mode against v1 mode at the same
 * request rate (sandbox and client quota R requests/s on `analyzeText` and `legacyAnalyze`): items/s of each.
 *
 * Every daemon run also reports its process CPU time per item (whole run, and steady: first verdict to
 * last), next to the floor measured in the same round: the v1 client's own CPU per request
 * (`bench/support/client-floor.ts`, its own process). CPU time is far steadier than items/s on a
 * loaded machine.
 *
 *   pnpm bench daemon-throughput            (built daemon; after `turbo run build`)
 *   node --conditions=@warden/source bench/daemon-throughput.ts [--source] [--items 50000] [--rounds 2]
 *        [--rate 50] [--no-legacy] [--no-write] [--daemon-only] [--statements] [--profile DIR] [--latency MS]
 *        [--remote-items 3000]
 *
 * `--latency MS`: the sandbox answers every request after MS (a remote API's round trip instead of
 * loopback's ~1 ms), where throughput is bound by the calls in flight rather than by CPU.
 * `--daemon-only`: no capacity and no script (the floor still runs). `--statements`: count and time the
 * daemon's SQL statements (bench/support/sql-counter.ts) and print them per item. `--profile DIR`: the
 * daemon runs under `--cpu-prof` and writes its profile into DIR. `--baseline BIN` (with `--source`): each round
 * also runs the daemon of another `apps/daemon/src/bin.ts` (a copy of an older commit's `apps/daemon/src` next to
 * a symlink to this `apps/daemon/node_modules`), before or after this one in turn: before/after in the same run.
 *
 * An item counts once its verdict is in the jsonl file (fsynced by the sink): end to end, durable.
 */
import { fork } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import {
  apiSection,
  childMessage,
  daemonConfig,
  feedXml,
  flag,
  has,
  lineCounter,
  machine,
  measureCapacity,
  option,
  progress,
  rssSource,
  type SandboxProcess,
  serve,
  sleep,
  spread,
  startDaemon,
  startSandbox,
  tempDir,
  verdictsFile,
  writeDocSection,
  writeResult
} from "./support/common.ts"

const items = flag("items", 50_000)
const rounds = flag("rounds", 2)
const rate = flag("rate", 50)
const timeoutSeconds = flag("timeout", 240)
const daemonOnly = has("daemon-only")
const countStatements = has("statements")
const profileDir = option("profile")
const baselineBin = option("baseline")
/** Node options given for the daemon (`BENCH_DAEMON_NODE_OPTIONS`), kept next to the ones added here. */
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a knob of the benchmarks, which are not a turbo task
const baseNodeOptions = process.env.BENCH_DAEMON_NODE_OPTIONS ?? ""

interface DaemonRun {
  readonly items: number
  readonly seconds: number
  /** Items/s from the process start to the last verdict in the file. */
  readonly itemsPerSecond: number
  /** Items/s from the first verdict in the file to the last (startup and the feed's parse excluded). */
  readonly steadyPerSecond: number
  readonly firstVerdictSeconds: number
  readonly peakRssMb: number
  readonly requests: Record<string, number>
  /** Process CPU time per item, µs: the whole run (start, feed parse included). */
  readonly cpuPerItem: number
  /** KB the process handed to `write` per item (files and sockets: the WAL, temp files, the jsonl file, HTTP). */
  readonly writtenKbPerItem: number
  /** KB per item sent to storage (page cache dirtied, less what deleted temp files cancelled). */
  readonly storedKbPerItem: number
  /** Process CPU time per item, µs, from the first verdict to the last. */
  readonly steadyCpuPerItem: number
  /** SQL statements per item and the top ones (`--statements`). */
  readonly statements?: {
    readonly perItem: number
    readonly top: ReadonlyArray<{ sql: string; count: number; millis: number }>
  }
}

/** Runs the daemon on the feed until `target` verdicts are in the file (or `windowSeconds` after the first). */
const runDaemon = async (
  sandbox: SandboxProcess,
  feedUrl: string,
  mode: "v1" | "legacy",
  options: {
    readonly target: number
    readonly quotas?: Record<string, unknown>
    readonly windowSeconds?: number
    /** Another daemon's bin.ts (`--baseline`). */
    readonly bin?: string
  }
): Promise<DaemonRun> => {
  const dir = tempDir(`throughput-${mode}`)
  const endpoint = mode === "v1" ? "analyzeText" : "legacyAnalyze"
  const before = await sandbox.answers(endpoint)
  const start = performance.now()
  const countsFile = join(dir, "sql-counts.json")
  const nodeOptions = [
    baseNodeOptions,
    countStatements ? `--import=${resolve(import.meta.dirname, "support/sql-counter.ts")}` : "",
    profileDir === undefined ? "" : `--cpu-prof --cpu-prof-dir=${resolve(profileDir)}`
  ].join(" ")
  const daemon = startDaemon(
    dir,
    daemonConfig(
      dir,
      apiSection(sandbox.url, options.quotas),
      rssSource(feedUrl, { retain: 100_000, maxBytes: 256 * 1024 * 1024 }, mode)
    ),
    { bin: options.bin, nodeOptions: nodeOptions.trim(), env: { BENCH_SQL_COUNTS: countsFile } }
  )
  const count = lineCounter(verdictsFile(dir))
  let first: number | undefined
  let firstCount = 0
  let firstCpu = 0
  let done = 0
  let lastPrint = start
  const deadline = start + timeoutSeconds * 1000
  while (true) {
    await sleep(100)
    const now = performance.now()
    done = count()
    if (first === undefined && done > 0) {
      first = now
      firstCount = done
      firstCpu = daemon.cpu()
    }
    if (now - lastPrint >= 2000) {
      lastPrint = now
      progress(
        `${mode}: ${done.toLocaleString("en-US")}/${options.target.toLocaleString("en-US")} verdicts after ${((now - start) / 1000).toFixed(1)} s, RSS ${(daemon.rss() / 2 ** 20).toFixed(0)} MB`
      )
    }
    if (done >= options.target) break
    if (options.windowSeconds !== undefined && first !== undefined && now - first >= options.windowSeconds * 1000) break
    if (daemon.exited()) throw new Error(`daemon exited early:\n${daemon.stderr().slice(-4000)}`)
    if (now > deadline) {
      progress(`${mode}: timed out after ${timeoutSeconds} s`)
      break
    }
  }
  const end = performance.now()
  const cpuMillis = daemon.cpu()
  const io = daemon.io()
  const peakRssMb = daemon.peakRss() / 2 ** 20
  await daemon.stop()
  const statements = countStatements ? statementsOf(countsFile, done) : undefined
  const after = await sandbox.answers(endpoint)
  const requests = Object.fromEntries(
    Object.entries(after).map(([status, n]) => [status, n - (before[status] ?? 0)] as const)
  )
  const seconds = (end - start) / 1000
  const steady = first === undefined || end - first < 1 ? 0 : ((done - firstCount) * 1000) / (end - first)
  return {
    items: done,
    seconds,
    itemsPerSecond: done / seconds,
    steadyPerSecond: steady,
    firstVerdictSeconds: first === undefined ? Number.NaN : (first - start) / 1000,
    peakRssMb,
    requests,
    cpuPerItem: (cpuMillis * 1000) / Math.max(1, done),
    writtenKbPerItem: io.written / 1024 / Math.max(1, done),
    storedKbPerItem: io.stored / 1024 / Math.max(1, done),
    steadyCpuPerItem: ((cpuMillis - firstCpu) * 1000) / Math.max(1, done - firstCount),
    ...(statements === undefined ? {} : { statements })
  }
}

/** The statement timer's counts (written by the daemon at exit), per item. */
const statementsOf = (file: string, items: number) => {
  const { statements } = JSON.parse(readFileSync(file, "utf8")) as {
    statements: Array<{ sql: string; count: number; millis: number }>
  }
  const total = statements.reduce((n, s) => n + s.count, 0)
  return { perItem: total / Math.max(1, items), top: statements.slice(0, 12) }
}

/** The floor: the v1 client's own process CPU per request (its own process, concurrency 32, 4 s). */
const runFloor = (apiUrl: string) =>
  childMessage<{ requests: number; seconds: number; cpuMicrosPerRequest: number }>(
    "client-floor.ts",
    [apiUrl, "4"],
    ["--conditions=@warden/source"]
  )

/** The hand-written script, as its own process: items/s from its start to its exit. */
const runScript = async (feedUrl: string, apiUrl: string) => {
  const dir = tempDir("script")
  const out = join(dir, "verdicts.jsonl")
  const start = performance.now()
  const child = fork(new URL("./support/naive-client.ts", import.meta.url).pathname, [feedUrl, apiUrl, out], {
    execArgv: [],
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const result = await new Promise<{ items: number; failed: number }>((resolve, reject) => {
    child.once("message", (m: { items: number; failed: number }) => resolve(m))
    child.once("exit", (code) => code !== 0 && reject(new Error(`script exited with ${code}`)))
  })
  await new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r(null)))
  const seconds = (performance.now() - start) / 1000
  return { ...result, seconds, itemsPerSecond: result.items / seconds }
}

const requestCount = (requests: Record<string, number>) => Object.values(requests).reduce((a, b) => a + b, 0)

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

const diskOf = (d: DaemonRun) =>
  `written ${fmt(d.writtenKbPerItem, 1)} KB per item (to storage ${fmt(d.storedKbPerItem, 1)})`

progress(`feed of ${fmt(items)} items; ${rounds} round(s); ${machine()}`)
const feedBody = feedXml(items)
const feed = await serve(feedBody)
progress(`feed: ${(feedBody.length / 2 ** 20).toFixed(1)} MiB at ${feed.url}`)
// A remote API's round trip: every request answered after `--latency` ms (the sandbox's stall fault).
const latency = flag("latency", 0)
const sandbox = await startSandbox(latency > 0 ? { faults: { stall: 1, stallMs: latency } } : {})
progress(`sandbox (own process) at ${sandbox.url}`)

const capacity: Array<number> = []
const script: Array<number> = []
const floor: Array<number> = []
const daemonV1: Array<DaemonRun> = []
const baseline: Array<DaemonRun> = []
for (let round = 1; round <= rounds; round++) {
  let cap = { rps: Number.NaN, errors: 0 }
  let s = { itemsPerSecond: Number.NaN, items: 0, seconds: 0 }
  if (!daemonOnly) {
    progress(`round ${round}/${rounds}: sandbox capacity (separate load process, 64 in flight, 5 s)`)
    cap = await measureCapacity(sandbox.url, 64, 5)
    capacity.push(cap.rps)
    progress(`  capacity ${fmt(cap.rps)} requests/s (${cap.errors} errors)`)
    progress(`round ${round}/${rounds}: hand-written script (fetch, concurrency 32, append to a file)`)
    s = await runScript(feed.url, sandbox.url)
    script.push(s.itemsPerSecond)
    progress(`  script ${fmt(s.itemsPerSecond)} items/s (${fmt(s.items)} items in ${s.seconds.toFixed(1)} s)`)
  }
  progress(`round ${round}/${rounds}: the floor (the v1 client alone, concurrency 32, 4 s)`)
  const f = await runFloor(sandbox.url)
  floor.push(f.cpuMicrosPerRequest)
  progress(`  client ${fmt(f.requests / f.seconds)} requests/s, ${fmt(f.cpuMicrosPerRequest)} µs CPU per request`)
  const runBaseline = async () => {
    if (baselineBin === undefined) return
    progress(`round ${round}/${rounds}: baseline daemon (${baselineBin}), v1 mode`)
    const b = await runDaemon(sandbox, feed.url, "v1", { target: items, bin: baselineBin })
    baseline.push(b)
    progress(
      `  baseline ${fmt(b.itemsPerSecond)} items/s (steady ${fmt(b.steadyPerSecond)}); CPU per item ${fmt(b.cpuPerItem)} µs (steady ${fmt(b.steadyCpuPerItem)} µs); ${diskOf(b)}${b.statements === undefined ? "" : `; ${b.statements.perItem.toFixed(2)} SQL statements per item`}`
    )
  }
  if (round % 2 === 1) await runBaseline()
  progress(`round ${round}/${rounds}: daemon, v1 mode`)
  const d = await runDaemon(sandbox, feed.url, "v1", { target: items })
  daemonV1.push(d)
  progress(
    `  daemon ${fmt(d.itemsPerSecond)} items/s (steady ${fmt(d.steadyPerSecond)}; ${fmt(d.items)} in ${d.seconds.toFixed(1)} s; first verdict at ${d.firstVerdictSeconds.toFixed(1)} s; requests ${JSON.stringify(d.requests)}; peak RSS ${d.peakRssMb.toFixed(0)} MB)`
  )
  progress(
    `  CPU per item ${fmt(d.cpuPerItem)} µs (steady ${fmt(d.steadyCpuPerItem)} µs); floor ${fmt(f.cpuMicrosPerRequest)} µs per request; ${diskOf(d)}`
  )
  if (d.statements !== undefined) {
    progress(`  SQL statements per item ${d.statements.perItem.toFixed(2)}; by time:`)
    for (const st of d.statements.top)
      progress(`    ${String(st.count).padStart(7)} x ${st.millis.toFixed(0).padStart(6)} ms  ${st.sql}`)
  }
  if (round % 2 === 0) await runBaseline()
  if (!daemonOnly)
    progress(
      `  ratios: daemon/capacity ${(d.itemsPerSecond / cap.rps).toFixed(2)}, daemon/script ${(d.itemsPerSecond / s.itemsPerSecond).toFixed(2)}`
    )
}

/**
 * The same race against an API a round trip away (`--remote-items N`, 0 to skip; once, after the rounds):
 * a second sandbox answering every request after 100 ms, as a hosted API does, and a feed of N items.
 * On loopback the daemon is CPU-bound; there, what counts is how many calls each keeps on the wire.
 */
const remoteItems = flag("remote-items", 3000)
const remoteLatencyMs = 100
let remote: { items: number; scriptItemsPerSecond: number; daemon: DaemonRun } | undefined
if (!daemonOnly && latency === 0 && remoteItems > 0) {
  const remoteFeed = await serve(feedXml(remoteItems))
  const far = await startSandbox({ faults: { stall: 1, stallMs: remoteLatencyMs } })
  progress(`the API ${remoteLatencyMs} ms away: hand-written script, then daemon, ${fmt(remoteItems)} items`)
  const s = await runScript(remoteFeed.url, far.url)
  progress(`  script ${fmt(s.itemsPerSecond)} items/s`)
  const d = await runDaemon(far, remoteFeed.url, "v1", { target: remoteItems })
  progress(
    `  daemon ${fmt(d.itemsPerSecond)} items/s (steady ${fmt(d.steadyPerSecond)}), ${(d.itemsPerSecond / s.itemsPerSecond).toFixed(1)}x the script`
  )
  remote = { items: remoteItems, scriptItemsPerSecond: s.itemsPerSecond, daemon: d }
  await far.close()
  await remoteFeed.close()
}

let legacy: { v1: DaemonRun; legacy: DaemonRun } | undefined
if (!has("no-legacy")) {
  const quota = { requestsPerSecond: rate }
  await sandbox.setQuotas({ "*": { analyzeText: quota, legacyAnalyze: quota } })
  const quotas = { analyzeText: quota, legacyAnalyze: quota }
  progress(`legacy vs v1 at ${rate} requests/s (sandbox quota and the daemon's api.quotas)`)
  const v1 = await runDaemon(sandbox, feed.url, "v1", { target: items, quotas, windowSeconds: 10 })
  progress(`  v1 ${fmt(v1.steadyPerSecond, 1)} items/s (over ${fmt(v1.items)} verdicts)`)
  const lg = await runDaemon(sandbox, feed.url, "legacy", { target: items, quotas })
  progress(
    `  legacy ${fmt(lg.steadyPerSecond)} items/s steady, ${fmt(lg.itemsPerSecond)} from start (requests ${JSON.stringify(lg.requests)})`
  )
  legacy = { v1, legacy: lg }
}
await sandbox.close()
await feed.close()

const ratios = daemonV1.map((d, i) => d.itemsPerSecond / capacity[i]!)
const scriptRatios = daemonV1.map((d, i) => d.itemsPerSecond / script[i]!)
const result = {
  bench: "daemon-throughput",
  date: new Date().toISOString(),
  machine: machine(),
  items,
  rounds,
  capacityRps: capacity,
  scriptItemsPerSecond: script.map(Math.round),
  daemonItemsPerSecond: daemonV1.map((d) => Math.round(d.itemsPerSecond)),
  daemonSteadyPerSecond: daemonV1.map((d) => Math.round(d.steadyPerSecond)),
  daemonPeakRssMb: daemonV1.map((d) => Math.round(d.peakRssMb)),
  daemonCpuPerItemMicros: daemonV1.map((d) => Math.round(d.cpuPerItem)),
  daemonSteadyCpuPerItemMicros: daemonV1.map((d) => Math.round(d.steadyCpuPerItem)),
  daemonWrittenKbPerItem: daemonV1.map((d) => Number(d.writtenKbPerItem.toFixed(1))),
  daemonStoredKbPerItem: daemonV1.map((d) => Number(d.storedKbPerItem.toFixed(1))),
  clientCpuPerRequestMicros: floor.map(Math.round),
  daemonStatementsPerItem: daemonV1.map((d) => d.statements?.perItem),
  baseline:
    baselineBin === undefined
      ? undefined
      : {
          bin: baselineBin,
          itemsPerSecond: baseline.map((d) => Math.round(d.itemsPerSecond)),
          cpuPerItemMicros: baseline.map((d) => Math.round(d.cpuPerItem)),
          steadyCpuPerItemMicros: baseline.map((d) => Math.round(d.steadyCpuPerItem)),
          writtenKbPerItem: baseline.map((d) => Number(d.writtenKbPerItem.toFixed(1))),
          statementsPerItem: baseline.map((d) => d.statements?.perItem)
        },
  daemonRequests: daemonV1.map((d) => d.requests),
  ratioToCapacity: ratios.map((r) => Number(r.toFixed(3))),
  ratioToScript: scriptRatios.map((r) => Number(r.toFixed(3))),
  remote:
    remote === undefined
      ? undefined
      : {
          latencyMs: remoteLatencyMs,
          items: remote.items,
          scriptItemsPerSecond: Math.round(remote.scriptItemsPerSecond),
          daemonItemsPerSecond: Math.round(remote.daemon.itemsPerSecond),
          daemonSteadyPerSecond: Math.round(remote.daemon.steadyPerSecond),
          ratioToScript: Number((remote.daemon.itemsPerSecond / remote.scriptItemsPerSecond).toFixed(2))
        },
  legacy:
    legacy === undefined
      ? undefined
      : {
          rate,
          v1ItemsPerSecond: Number(legacy.v1.steadyPerSecond.toFixed(1)),
          legacyItemsPerSecond: Math.round(legacy.legacy.steadyPerSecond),
          legacyFromStart: Math.round(legacy.legacy.itemsPerSecond),
          legacyRequests: legacy.legacy.requests,
          // every item is one message: items over the requests that carried them (the micro-batches' mean size)
          legacyRequestCount: requestCount(legacy.legacy.requests),
          messagesPerRequest: Number((items / Math.max(1, requestCount(legacy.legacy.requests))).toFixed(1)),
          ratio: Number((legacy.legacy.steadyPerSecond / legacy.v1.steadyPerSecond).toFixed(1))
        }
}
console.log(JSON.stringify(result))
writeResult("daemon-throughput", result)

if (!has("no-write") && !has("source") && !daemonOnly) {
  const lg = result.legacy
  writeDocSection(
    "daemon-throughput",
    `## Daemon: throughput (\`bench/daemon-throughput.ts\`)

Command: \`pnpm bench daemon-throughput\` (the built daemon, \`node apps/daemon/dist/bin.js run\`). A ${fmt(items)}-item RSS feed
(one poll, \`maxItemsPerPoll: 100000\`), SQLite state, one jsonl sink; an item counts when its verdict is in the
(fsynced) jsonl file. The sandbox runs in its own process without quota. Each round measures, in this order: the
sandbox's own capacity (separate undici load process, 64 in flight, 5 s), the hand-written script
(\`bench/support/naive-client.ts\`: fetch + parse the feed, \`fetch\` each item at concurrency 32, append to a file,
not durable), then the daemon. Figures are median (min–max) of ${rounds} rounds; ratios are per round. After the
rounds, once: the script and the daemon against a second sandbox that answers every request after 100 ms, the
round trip of a hosted API (\`--remote-items\`).
Measured ${result.date.slice(0, 10)} on ${result.machine}.

| | items/s | ratio | target |
|---|---:|---:|---:|
| sandbox capacity (requests/s) | ${spread(capacity)} | | |
| hand-written script | ${spread(script)} | | |
| daemon, v1 mode (start to last verdict) | ${spread(daemonV1.map((d) => d.itemsPerSecond))} | ${spread(ratios, 2)} of capacity | >= 0.75 |
| | | ${spread(scriptRatios, 2)} of the script | >= 1.0 |
| daemon, v1 mode, steady (first to last verdict) | ${spread(daemonV1.map((d) => d.steadyPerSecond))} | | |

| CPU time | µs | target |
|---|---:|---:|
| daemon, per item (process CPU / items, whole run) | ${spread(daemonV1.map((d) => d.cpuPerItem))} | <= 250 |
| daemon, per item, steady (first to last verdict) | ${spread(daemonV1.map((d) => d.steadyCpuPerItem))} | |
| the floor: the v1 client alone, per request (own process) | ${spread(floor)} | |

| Written by the daemon | KB per item |
|---|---:|
| handed to \`write\` (state, temp files, the jsonl file, HTTP requests) | ${spread(
      daemonV1.map((d) => d.writtenKbPerItem),
      1
    )} |
| sent to storage (less temp files deleted before writeback) | ${spread(
      daemonV1.map((d) => d.storedKbPerItem),
      1
    )} |
${
  result.remote === undefined
    ? ""
    : `
| The API ${result.remote.latencyMs} ms away (every answer delayed; ${fmt(result.remote.items)} items, one run) | items/s | ratio |
|---|---:|---:|
| hand-written script | ${fmt(result.remote.scriptItemsPerSecond)} | |
| daemon, v1 mode (start to last verdict) | ${fmt(result.remote.daemonItemsPerSecond)} | ${fmt(result.remote.ratioToScript, 1)}x the script |
`
}${
  lg === undefined
    ? ""
    : `
| Same request rate | items/s | ratio | target |
|---|---:|---:|---:|
| v1 mode at ${lg.rate} requests/s (quota) | ${fmt(lg.v1ItemsPerSecond, 1)} | | |
| legacy mode at ${lg.rate} requests/s (quota) | ${fmt(lg.legacyItemsPerSecond)} | ${fmt(lg.ratio, 1)}x v1 | >= 50x |
| legacy: messages per request (${fmt(lg.legacyRequestCount)} requests) | ${fmt(lg.messagesPerRequest, 1)} | | >= 90 |
`
}
Daemon peak RSS during the v1 runs: ${spread(result.daemonPeakRssMb)} MB. Sandbox answers to the daemon per run: ${JSON.stringify(result.daemonRequests[0])}${lg === undefined ? "" : `; legacy: ${JSON.stringify(lg.legacyRequests)}`}.`
  )
}
process.exit(0)
