/**
 * Quota adherence: the sandbox enforces Q requests/s on `analyzeText` (429 beyond), the daemon's
 * `api.quotas.analyzeText` is set to Q, and the transport's limiter paces the calls. Measured over a
 * window in the steady state (after the first seconds): sustained rate / Q (target >= 0.97) and the
 * share of answers that were 429 over the whole run (target <= 0.1%).
 *
 *   pnpm bench daemon-quota
 *   node --conditions=@warden/source bench/daemon-quota.ts [--source] [--rate 200] [--seconds 15] [--no-write]
 */
import {
  analyzeTextQuota,
  apiSection,
  daemonConfig,
  feedXml,
  flag,
  has,
  machine,
  progress,
  rssSource,
  serve,
  sleep,
  spread,
  startDaemon,
  startSandbox,
  tempDir,
  writeDocSection,
  writeResult
} from "./support/common.ts"

const rate = flag("rate", 200)
const seconds = flag("seconds", 15)
const rounds = flag("rounds", 2)
const warmup = 3
const items = Math.ceil(rate * (seconds + warmup + 10))

const feed = await serve(feedXml(items))
const quotas = analyzeTextQuota(rate)
const sandbox = await startSandbox({ quotas })
progress(`sandbox quota ${rate} requests/s on analyzeText; feed of ${items} items; ${machine()}`)

const runs: Array<{ sustained: number; ratio: number; answered: number; quota429: number; share429: number }> = []
for (let round = 1; round <= rounds; round++) {
  const dir = tempDir("quota")
  const before = await sandbox.answers()
  const daemon = startDaemon(dir, daemonConfig(dir, apiSection(sandbox.url, quotas["*"]), rssSource(feed.url)))
  const ok = async () => ((await sandbox.answers())["200"] ?? 0) - (before["200"] ?? 0)
  const deadline = Date.now() + 60_000
  while ((await ok()) === 0) {
    if (Date.now() > deadline || daemon.exited()) throw new Error(`no request reached the sandbox\n${daemon.stderr()}`)
    await sleep(50)
  }
  progress(`round ${round}/${rounds}: first answers; ${warmup} s warm-up, then ${seconds} s measured`)
  await sleep(warmup * 1000)
  const n0 = await ok()
  const t0 = performance.now()
  for (let s = 1; s <= seconds; s++) {
    await sleep(1000)
    if (s % 5 === 0 || s === seconds) {
      const n = await ok()
      progress(`  ${s} s: ${((n - n0) / ((performance.now() - t0) / 1000)).toFixed(1)} requests/s answered 200`)
    }
  }
  const n1 = await ok()
  const t1 = performance.now()
  const after = await sandbox.answers()
  await daemon.stop()
  const answered = Object.entries(after).reduce((sum, [k, v]) => sum + v - (before[k] ?? 0), 0)
  const quota429 = (after["429"] ?? 0) - (before["429"] ?? 0)
  const sustained = (n1 - n0) / ((t1 - t0) / 1000)
  const run = { sustained, ratio: sustained / rate, answered, quota429, share429: quota429 / answered }
  runs.push(run)
  progress(
    `  sustained ${sustained.toFixed(1)} requests/s = ${run.ratio.toFixed(3)} of the quota; ${quota429} answered 429 of ${answered}`
  )
}
await sandbox.close()
await feed.close()

const result = {
  bench: "daemon-quota",
  date: new Date().toISOString(),
  machine: machine(),
  rate,
  seconds,
  sustained: runs.map((r) => Number(r.sustained.toFixed(1))),
  ratio: runs.map((r) => Number(r.ratio.toFixed(3))),
  answered: runs.map((r) => r.answered),
  quota429: runs.map((r) => r.quota429),
  share429: runs.map((r) => Number(r.share429.toFixed(5)))
}
console.log(JSON.stringify(result))
writeResult("daemon-quota", result)
if (!has("no-write") && !has("source")) {
  writeDocSection(
    "daemon-quota",
    `## Daemon: quota adherence (\`bench/daemon-quota.ts\`)

Command: \`pnpm bench daemon-quota\`. The sandbox enforces ${rate} requests/s on \`analyzeText\` (token bucket, burst =
rate); the daemon's \`api.quotas.analyzeText\` is ${rate} requests/s and the transport's limiter paces; an RSS feed
of ${items} items. Sustained rate = answers 200 over ${seconds} s after a ${warmup} s warm-up; 429 share over the whole
run. ${rounds} rounds, median (min–max). Measured ${result.date.slice(0, 10)} on ${result.machine}.

| | measured | target |
|---|---:|---:|
| sustained requests/s | ${spread(result.sustained, 1)} | |
| sustained / quota | ${spread(result.ratio, 3)} | >= 0.97 |
| answered 429 | ${result.quota429.join(", ")} of ${result.answered.join(", ")} (${spread(
      result.share429.map((s) => s * 100),
      2
    )}%) | <= 0.1% |`
  )
}
process.exit(0)
