/**
 * Memory under a backlog: a `module:` plugin source emits 1,000,000 items as fast as the daemon takes
 * them, against a sandbox that answers `analyzeText` at Q requests/s (quota; the daemon's client quota
 * is the same), so the backlog can never drain. RSS of the daemon process is sampled every 100 ms;
 * the run stops once RSS has not grown by more than 2% over 15 s (after at least 30 s), or after
 * --seconds. Target: peak RSS <= 256 MB. Baseline in the same run: the daemon's RSS once started
 * (first verdict), before the backlog builds up.
 *
 *   pnpm bench daemon-memory
 *   node --conditions=@warden/source bench/daemon-memory.ts [--source] [--items 1000000] [--rate 200] [--seconds 90] [--no-write]
 */
import {
  analyzeTextQuota,
  apiSection,
  CHANNEL,
  daemonConfig,
  flag,
  has,
  lineCounter,
  machine,
  progress,
  sleep,
  startDaemon,
  startSandbox,
  tempDir,
  verdictsFile,
  writeDocSection,
  writeResult
} from "./support/common.ts"
import { writeGeneratorPlugin } from "./support/generator-plugin.ts"

const items = flag("items", 1_000_000)
const rate = flag("rate", 200)
const maxSeconds = flag("seconds", 90)

const quotas = analyzeTextQuota(rate)
const sandbox = await startSandbox({ quotas })
const dir = tempDir("memory")
const plugin = writeGeneratorPlugin(dir)
progress(`generator source of ${items.toLocaleString("en-US")} items; API quota ${rate} requests/s; ${machine()}`)
const daemon = startDaemon(
  dir,
  daemonConfig(dir, apiSection(sandbox.url, quotas["*"]), {
    id: "backlog",
    module: plugin,
    channelId: CHANNEL,
    config: { count: items }
  })
)
const count = lineCounter(verdictsFile(dir))
const start = performance.now()
const samples: Array<{ t: number; rss: number }> = []
let baseline = 0
let stopReason = `time limit (${maxSeconds} s)`
while ((performance.now() - start) / 1000 < maxSeconds) {
  await sleep(1000)
  if (daemon.exited()) throw new Error(`daemon exited:\n${daemon.stderr().slice(-4000)}`)
  const t = (performance.now() - start) / 1000
  const rss = daemon.rss()
  samples.push({ t, rss })
  const verdicts = count()
  if (baseline === 0 && verdicts > 0) baseline = rss
  if (Math.round(t) % 5 === 0) {
    progress(
      `${t.toFixed(0)} s: RSS ${(rss / 2 ** 20).toFixed(0)} MB (peak ${(daemon.peakRss() / 2 ** 20).toFixed(0)} MB), ${verdicts.toLocaleString("en-US")} verdicts`
    )
  }
  const window = samples.filter((s) => s.t >= t - 15)
  if (t >= 30 && window.length > 10) {
    const first = window[0]!.rss
    const max = Math.max(...window.map((s) => s.rss))
    if (max <= first * 1.02) {
      stopReason = `RSS plateaued (< 2% growth over 15 s) after ${t.toFixed(0)} s`
      break
    }
  }
}
const peak = daemon.peakRss()
const verdicts = count()
const seconds = (performance.now() - start) / 1000
await daemon.stop()
await sandbox.close()
const result = {
  bench: "daemon-memory",
  date: new Date().toISOString(),
  machine: machine(),
  items,
  rate,
  seconds: Number(seconds.toFixed(1)),
  stopReason,
  verdicts,
  backlog: items - verdicts,
  startedRssMb: Math.round(baseline / 2 ** 20),
  peakRssMb: Math.round(peak / 2 ** 20),
  finalRssMb: Math.round((samples.at(-1)?.rss ?? 0) / 2 ** 20),
  target: 256
}
console.log(JSON.stringify(result))
writeResult("daemon-memory", result)
if (!has("no-write") && !has("source")) {
  writeDocSection(
    "daemon-memory",
    `## Daemon: memory under a 1,000,000-item backlog (\`bench/daemon-memory.ts\`)

Command: \`pnpm bench daemon-memory\`. A \`module:\` plugin source (\`bench/support/generator-plugin.ts\`) offers
${items.toLocaleString("en-US")} items at once; the sandbox answers \`analyzeText\` at ${rate} requests/s (quota, and the
daemon's client quota), so the backlog never drains. RSS of the built daemon sampled every 100 ms; stopped on: ${stopReason}.
Measured ${result.date.slice(0, 10)} on ${result.machine}.

| | MB | target |
|---|---:|---:|
| RSS at the first verdict (baseline) | ${result.startedRssMb} | |
| peak RSS | ${result.peakRssMb} | <= 256 |
| RSS at the end | ${result.finalRssMb} | |

${verdicts.toLocaleString("en-US")} verdicts in ${result.seconds} s; ${result.backlog.toLocaleString("en-US")} items still waiting upstream.
The backlog stays in the source: the pipeline pulls at most \`inflight\` batches per source, so memory does not grow with it.`
  )
}
process.exit(0)
