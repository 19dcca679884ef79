/**
 * How long the newest items of a feed wait after a gap (issue 35 §7): `warden run` (one RSS source,
 * SQLite, jsonl sink) against the sandbox, the feed polled every 10 s, in two scenarios:
 *   - restart: a first run analyses the feed's 340 items and stops; 60 new items are published; the
 *     daemon starts again on the same state. Seconds from its start to the newest item's verdict, and
 *     to the last of the 60 new ones' (the 340 others are read again and deduped by the daemon).
 *   - gap: 400 items the daemon never saw, the sandbox (and the daemon's quota) at 20 requests/s, as a
 *     real API's quota would be: seconds from the start to the newest item's verdict, and to the last.
 * Each with `maxItemsPerPoll` 100 (the default) and 10,000 (the whole backlog in one poll). Which order
 * the connector emits a poll in is the code's: run it before and after a change with `--label`.
 *
 *   node --conditions=@warden/source bench/rss-backlog.ts --source [--rounds 2] [--label after] [--no-write]
 */
import { createHash } from "node:crypto"
import {
  analyzeTextQuota,
  apiSection,
  daemonConfig,
  feedXml,
  flag,
  has,
  loadAverage,
  machine,
  option,
  progress,
  readJsonl,
  rssSource,
  serve,
  sleep,
  spread,
  startDaemon,
  startSandbox,
  tempDir,
  verdictsFile,
  want,
  writeDocSection,
  writeResult
} from "./support/common.ts"

const rounds = flag("rounds", 2)
const label = option("label") ?? "this build"
const pollInterval = "10 seconds"
const rate = 20

/** The reference the RSS connector gives generated item `i` of feed `bench` (guid `item-i`). */
const referenceOf = (i: number) =>
  `rss:bench/${createHash("sha256").update(`guid:item-${i}`).digest("hex").slice(0, 32)}`

let body = feedXml(1)
const feed = await serve(() => body)
const sandbox = await startSandbox()
progress(`${rounds} round(s) per case, pollInterval ${pollInterval}; ${label}; ${machine()}`)

/**
 * Starts the daemon on `dir` and waits until every reference of `wanted` has a verdict line: seconds
 * from the start to the verdict of `wanted[0]` (the newest) and to the last of them, and the daemon's CPU.
 */
const runUntil = async (dir: string, source: unknown, api: ReturnType<typeof apiSection>, wanted: Array<string>) => {
  const started = performance.now()
  const daemon = startDaemon(dir, daemonConfig(dir, api, source))
  const at = new Map<string, number>()
  const deadline = started + 300_000
  while (at.size < wanted.length) {
    if (daemon.exited()) throw new Error(`daemon exited:\n${daemon.stderr().slice(-4000)}`)
    if (performance.now() > deadline) throw new Error(`${at.size} of ${wanted.length} verdicts after 300 s`)
    const now = (performance.now() - started) / 1000
    for (const line of readJsonl<{ reference: string }>(verdictsFile(dir))) {
      if (!at.has(line.reference) && wanted.includes(line.reference)) at.set(line.reference, now)
    }
    await sleep(100)
  }
  const cpu = daemon.cpu()
  await daemon.stop()
  return { newest: at.get(wanted[0]!)!, last: Math.max(...at.values()), cpuMs: cpu }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => to - k)

interface Figures {
  readonly newest: Array<number>
  readonly last: Array<number>
  readonly cpuMs: Array<number>
}
const results: Record<string, Figures> = {}
const record = (name: string, r: { newest: number; last: number; cpuMs: number }) => {
  results[name] ??= { newest: [], last: [], cpuMs: [] }
  results[name].newest.push(r.newest)
  results[name].last.push(r.last)
  results[name].cpuMs.push(r.cpuMs)
  progress(`${name}: newest after ${r.newest.toFixed(1)} s, last after ${r.last.toFixed(1)} s, CPU ${r.cpuMs} ms`)
}

for (let round = 1; round <= rounds; round++) {
  for (const maxItemsPerPoll of [100, 10_000]) {
    if (want("restart")) {
      await sandbox.setQuotas({})
      const dir = tempDir("backlog")
      body = feedXml(340)
      // The first run reads the 340 items in one poll: only the second run is measured.
      await runUntil(
        dir,
        rssSource(feed.url, { pollInterval, maxItemsPerPoll: 10_000 }),
        apiSection(sandbox.url),
        range(1, 340).map(referenceOf)
      )
      body = feedXml(400)
      record(
        `restart, maxItemsPerPoll ${maxItemsPerPoll}`,
        await runUntil(
          dir,
          rssSource(feed.url, { pollInterval, maxItemsPerPoll }),
          apiSection(sandbox.url),
          range(341, 400).map(referenceOf)
        )
      )
    }
    if (want("gap")) {
      const quotas = analyzeTextQuota(rate)
      await sandbox.setQuotas(quotas)
      body = feedXml(400)
      record(
        `gap, maxItemsPerPoll ${maxItemsPerPoll}`,
        await runUntil(
          tempDir("backlog"),
          rssSource(feed.url, { pollInterval, maxItemsPerPoll }),
          apiSection(sandbox.url, quotas["*"]),
          range(1, 400).map(referenceOf)
        )
      )
    }
  }
}
await sandbox.close()
await feed.close()

const result = {
  bench: "rss-backlog",
  label,
  date: new Date().toISOString(),
  machine: machine(),
  load: loadAverage(),
  pollInterval,
  rounds,
  results
}
console.log(JSON.stringify(result))
writeResult(`rss-backlog-${label.replace(/\W+/g, "-")}`, result)
if (!has("no-write")) {
  const rows = Object.entries(results).map(
    ([name, f]) => `| ${name} | ${spread(f.newest, 1)} | ${spread(f.last, 1)} | ${spread(f.cpuMs)} |`
  )
  writeDocSection(
    `rss-backlog-${label.replace(/\W+/g, "-")}`,
    `### ${label} (${result.date.slice(0, 10)}, load ${result.load})

| case | newest verdict, s | last verdict, s | daemon CPU, ms |
|---|---:|---:|---:|
${rows.join("\n")}`
  )
}
