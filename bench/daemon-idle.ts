/**
 * What a daemon left running costs when there is nothing to do: process CPU per second of the built
 * `warden run` (one RSS source, SQLite, jsonl sink, admin API), measured over --seconds once its first
 * poll of 500 items is delivered, in two cases:
 *   - idle: `pollInterval: 1 hour`, so only the daemon's own timers run;
 *   - polling an unchanged feed: the same 500 items every 2 s (fetch, parse, nothing new).
 * Baseline in the same run: a bare `node` process with one 1 s timer (the measurement's floor). The
 * main thread's share is read from /proc (V8's helper threads do the rest).
 *
 *   pnpm bench daemon-idle
 *   node --conditions=@warden/source bench/daemon-idle.ts [--seconds 60] [--rounds 2] [--no-write]
 */
import { spawn } from "node:child_process"
import {
  apiSection,
  cpuOf,
  daemonConfig,
  feedXml,
  flag,
  has,
  lineCounter,
  loadAverage,
  machine,
  progress,
  rssSource,
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

const seconds = flag("seconds", 60)
const rounds = flag("rounds", 2)
const feedItems = 500

/** CPU ms per second of `pid` over `seconds`: the whole process and its main thread. */
const cpuPerSecond = async (pid: number) => {
  const all = cpuOf(pid)
  const main = cpuOf(pid, pid)
  const started = performance.now()
  await sleep(seconds * 1000)
  const s = (performance.now() - started) / 1000
  return { all: (cpuOf(pid) - all) / s, main: (cpuOf(pid, pid) - main) / s }
}

const sandbox = await startSandbox()
const feed = await serve(feedXml(feedItems, feedItems))
progress(`${rounds} round(s) of ${seconds} s per case; ${machine()}`)

/** One daemon, its first poll delivered, then measured. */
const daemonCase = async (pollInterval: string) => {
  const dir = tempDir("idle")
  const count = lineCounter(verdictsFile(dir))
  const daemon = startDaemon(
    dir,
    daemonConfig(dir, apiSection(sandbox.url), rssSource(feed.url, { pollInterval }, "v1"))
  )
  const deadline = performance.now() + 120_000
  while (count() < feedItems) {
    if (daemon.exited()) throw new Error(`daemon exited:\n${daemon.stderr().slice(-4000)}`)
    if (performance.now() > deadline) throw new Error(`${count()} of ${feedItems} verdicts after 120 s`)
    await sleep(200)
  }
  // Past the first poll's own work (its last sink writes, the young generation settling).
  await sleep(5000)
  const cpu = await cpuPerSecond(daemon.pid)
  await daemon.stop()
  return cpu
}

const bareCase = async () => {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
  await sleep(2000)
  const cpu = await cpuPerSecond(child.pid!)
  child.kill("SIGKILL")
  return cpu
}

const results = {
  bare: [] as Array<number>,
  idle: [] as Array<number>,
  idleMain: [] as Array<number>,
  polling: [] as Array<number>,
  pollingMain: [] as Array<number>
}
for (let round = 1; round <= rounds; round++) {
  const bare = await bareCase()
  results.bare.push(bare.all)
  const idle = await daemonCase("1 hour")
  results.idle.push(idle.all)
  results.idleMain.push(idle.main)
  const polling = await daemonCase("2 seconds")
  results.polling.push(polling.all)
  results.pollingMain.push(polling.main)
  progress(
    `round ${round}/${rounds}: bare node ${bare.all.toFixed(2)}, idle daemon ${idle.all.toFixed(2)} (main thread ${idle.main.toFixed(2)}), polling an unchanged feed every 2 s ${polling.all.toFixed(2)} (main ${polling.main.toFixed(2)}) ms CPU per second`
  )
}
await feed.close()
await sandbox.close()

const result = {
  bench: "daemon-idle",
  date: new Date().toISOString(),
  machine: machine(),
  seconds,
  rounds,
  load: loadAverage(),
  ...results
}
console.log(JSON.stringify(result))
writeResult("daemon-idle", result)
if (!has("no-write")) {
  writeDocSection(
    "daemon-idle",
    `## Daemon: idle (\`bench/daemon-idle.ts\`)

Command: \`pnpm bench daemon-idle\`. The built \`warden run\` with one RSS source (SQLite, jsonl sink, admin API),
measured for ${seconds} s once its first poll of ${feedItems} items is delivered; baseline in the same run: a bare
\`node\` with one 1 s timer. Process CPU (all threads; the main thread's share in brackets) per second of wall
time, median (min–max) of ${rounds} rounds. Measured ${result.date.slice(0, 10)} on ${result.machine}, load average ${result.load}.

| | ms CPU per second | % of one core |
|---|---:|---:|
| bare \`node\` (the floor) | ${spread(results.bare, 2)} | ${spread(
      results.bare.map((x) => x / 10),
      2
    )} |
| idle daemon (\`pollInterval: 1 hour\`) | ${spread(results.idle, 2)} (main ${spread(results.idleMain, 2)}) | ${spread(
      results.idle.map((x) => x / 10),
      2
    )} |
| polling an unchanged ${feedItems}-item feed every 2 s | ${spread(results.polling, 2)} (main ${spread(results.pollingMain, 2)}) | ${spread(
      results.polling.map((x) => x / 10),
      2
    )} |
`
  )
}
process.exit(0)
