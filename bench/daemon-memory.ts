/**
 * Memory under a backlog: a `module:` plugin source emits 1,000,000 items as fast as the daemon takes
 * them, against a sandbox that answers `analyzeText` at Q requests/s (quota; the daemon's client quota
 * is the same), so the backlog can never drain. RSS of the daemon process is sampled every 100 ms;
 * the run stops once RSS has not grown by more than 2% over 15 s (after at least 30 s), or after
 * --seconds. Target: peak RSS <= 256 MB. Baseline in the same run: the daemon's RSS once started
 * (first verdict), before the backlog builds up.
 *
 * Then one poll of --poll items (20,000) from an RSS feed on loopback, against the sandbox without quota:
 * peak RSS from start to the last verdict (target <= 256 MB: the connector hands the poll over as a
 * stream) and the peak before the first verdict (target <= 120 MB: load what a command uses).
 *
 *   pnpm bench daemon-memory
 *   node --conditions=@warden/source bench/daemon-memory.ts [--source] [--items 1000000] [--rate 200] [--seconds 90]
 *     [--poll 20000] [--no-write]
 */
import {
  analyzeTextQuota,
  feedXml,
  rssSource,
  serve,
  apiSection,
  CHANNEL,
  daemonConfig,
  flag,
  has,
  lineCounter,
  loadAverage,
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
const pollItems = flag("poll", 20_000)

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
let peakBeforeFirst = 0
let stopReason = `time limit (${maxSeconds} s)`
while ((performance.now() - start) / 1000 < maxSeconds) {
  await sleep(1000)
  if (daemon.exited()) throw new Error(`daemon exited:\n${daemon.stderr().slice(-4000)}`)
  const t = (performance.now() - start) / 1000
  const rss = daemon.rss()
  samples.push({ t, rss })
  const verdicts = count()
  if (baseline === 0 && verdicts > 0) {
    baseline = rss
    peakBeforeFirst = daemon.peakRss()
  }
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

/** One poll of `pollItems` items: peak RSS before the first verdict and until the last. */
const onePoll = async () => {
  const sandbox = await startSandbox()
  const feed = await serve(feedXml(pollItems))
  const dir = tempDir("memory-poll")
  const count = lineCounter(verdictsFile(dir))
  const daemon = startDaemon(
    dir,
    daemonConfig(
      dir,
      apiSection(sandbox.url),
      rssSource(feed.url, { retain: 100_000, maxBytes: 256 * 1024 * 1024 }, "v1")
    )
  )
  const start = performance.now()
  let beforeFirst = 0
  while (count() < pollItems && performance.now() - start < 600_000) {
    await sleep(100)
    if (daemon.exited()) throw new Error(`daemon exited:\n${daemon.stderr().slice(-4000)}`)
    if (beforeFirst === 0 && count() > 0) beforeFirst = daemon.peakRss()
  }
  const out = {
    items: pollItems,
    verdicts: count(),
    seconds: Number(((performance.now() - start) / 1000).toFixed(1)),
    peakBeforeFirstVerdictMb: Math.round(beforeFirst / 2 ** 20),
    peakRssMb: Math.round(daemon.peakRss() / 2 ** 20)
  }
  await daemon.stop()
  await feed.close()
  await sandbox.close()
  return out
}
progress(`one poll of ${pollItems.toLocaleString("en-US")} items`)
const poll = await onePoll()
progress(JSON.stringify(poll))
const load = loadAverage()

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
  load,
  startedRssMb: Math.round(baseline / 2 ** 20),
  peakBeforeFirstVerdictMb: Math.round(peakBeforeFirst / 2 ** 20),
  peakRssMb: Math.round(peak / 2 ** 20),
  finalRssMb: Math.round((samples.at(-1)?.rss ?? 0) / 2 ** 20),
  target: 256,
  poll
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
Then one poll of ${pollItems.toLocaleString("en-US")} items from an RSS feed on loopback (sandbox without quota), start to last verdict.
Measured ${result.date.slice(0, 10)} on ${result.machine}, load average ${load} (2 cores).

| | MB | target |
|---|---:|---:|
| backlog: peak RSS before the first verdict | ${result.peakBeforeFirstVerdictMb} | <= 120 |
| backlog: RSS at the first verdict | ${result.startedRssMb} | |
| backlog: **peak RSS** | ${result.peakRssMb} | <= 256 |
| backlog: RSS at the end | ${result.finalRssMb} | |
| one poll: peak RSS before the first verdict | ${poll.peakBeforeFirstVerdictMb} | <= 120 |
| one poll: **peak RSS** | ${poll.peakRssMb} | <= 256 |

Backlog: ${verdicts.toLocaleString("en-US")} verdicts in ${result.seconds} s; ${result.backlog.toLocaleString("en-US")} items still waiting upstream
(the pipeline pulls at most \`inflight\` batches per source, so memory does not grow with the backlog).
One poll: ${poll.verdicts.toLocaleString("en-US")} verdicts in ${poll.seconds} s.`
  )
}
process.exit(0)
