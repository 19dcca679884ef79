/**
 * Quota as users meet it (issue 19): the sandbox enforces Q requests/s (burst 5) on `analyzeText`, an
 * RSS backlog far larger than a run, SQLite, a jsonl sink, and the sandbox's own answers counted every
 * 250 ms (`GET /_sandbox/stats`). Cases:
 * - unconfigured: no `api.quotas` (the default): the limiter learns Q from the first 429;
 * - configured: `api.quotas.analyzeText` = Q from the start, with a full backlog;
 * - storm: configured = Q; the server drops to 0.4 Q for 20 s, back to Q, later to 0.4 Q for 4 s
 *   (`PUT /_sandbox/quotas` mid-run);
 * - capacity: no quota at all, for 10 s: what the daemon sends on this machine now (the ceiling of
 *   every other case; on a shared 2-core machine it can be below Q);
 * - shared: two daemons started together (own state, own feed, one API key: one organisation's quota),
 *   unconfigured: together they must stay within Q (each learns Q, then cuts by a quarter at each 429 at
 *   or under it, and climbs back in steps);
 * - shutdown: unconfigured, SIGTERM mid-run, restart on the same state, SIGTERM again: answers 200 vs
 *   items recorded vs verdicts in the jsonl sink (what a mid-run stop costs: lost, or billed twice).
 * Every case checks that no item was delivered twice and that each item version has one record.
 *
 *   pnpm bench daemon-quota-storm
 *   node --conditions=@warden/source bench/daemon-quota-storm.ts [--source] [--rate 80] [--rounds 1]
 *     [--case capacity|shared|unconfigured|configured|storm|shutdown] [--no-write]
 */
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import {
  analyzeTextQuota,
  apiSection,
  daemonConfig,
  feedXml,
  flag,
  has,
  machine,
  onlyCase,
  progress,
  readJsonl,
  rssSource,
  serve,
  spread,
  startDaemon,
  startSandbox,
  tempDir,
  verdictsFile,
  want,
  writeDocSection,
  writeResult
} from "./support/common.ts"
import { between, perSecond, quotaLines, reach, sampler, stalls } from "./support/quota.ts"

const Q = flag("rate", 80)
const BURST = 5
const rounds = flag("rounds", 1)
/** Seconds measured per case, from the first answer. */
const SECONDS = { capacity: 10, shared: 50, unconfigured: 45, configured: 30, storm: 70, shutdown: 12 } as const
/** The shared case is measured from this second: both daemons start together, and learn in the first seconds. */
const SHARED_FROM = 20
/** The storm's schedule (seconds from the first answer): the long drop, then the short one. */
const DROP = { from: 10, to: 30 }
const SHORT = { from: 50, to: 54 }
const LOW = 0.4
// far larger than any run: the whole feed is one poll, the backlog never runs out
const ITEMS = Math.ceil(Q * 120)

const quota = (rate: number) => analyzeTextQuota(rate, BURST)

/** What the state and the sink hold after the daemon stopped. */
const audit = (dir: string) => {
  const db = new DatabaseSync(join(dir, "state.db"), { readOnly: true })
  const items = db
    .prepare(
      "SELECT COUNT(*) AS n, COUNT(DISTINCT reference) AS refs, SUM(CASE WHEN status = 'analysed' THEN 1 ELSE 0 END) AS analysed FROM warden_items"
    )
    .get() as { n: number; refs: number; analysed: number }
  db.close()
  const lines = readJsonl<{ reference: string; version: number }>(verdictsFile(dir))
  const delivered = new Set(lines.map((l) => `${l.reference}@${l.version}`))
  return {
    recorded: Number(items.n),
    recordedAnalysed: Number(items.analysed),
    versionsPerItem: Number(items.n) / Math.max(1, Number(items.refs)),
    sinkLines: lines.length,
    sinkDuplicates: lines.length - delivered.size
  }
}

const feed = await serve(feedXml(ITEMS))
const sandbox = await startSandbox({ quotas: quota(Q) })
progress(`sandbox quota ${Q} requests/s (burst ${BURST}) on analyzeText; feed of ${ITEMS} items; ${machine()}`)

const config = (dir: string, configured: boolean) =>
  daemonConfig(
    dir,
    apiSection(sandbox.url, configured ? quota(Q)["*"] : {}),
    rssSource(feed.url),
    // info: the limiter logs each change of its rate (more than 20%), kept in the result
    "info"
  )

/**
 * Runs a case for `seconds` after its first answer, with `during` acting on the sandbox meanwhile;
 * `alongside` starts with the daemon (another daemon, say).
 */
const runCase = async (
  name: string,
  configured: boolean,
  seconds: number,
  during: (s: ReturnType<typeof sampler>) => Promise<void> = async () => {},
  serverQuota: unknown = quota(Q),
  alongside: () => void = () => {}
) => {
  await sandbox.setQuotas(serverQuota)
  const dir = tempDir(`storm-${name}`)
  const s = sampler(sandbox)
  const daemon = startDaemon(dir, config(dir, configured))
  alongside()
  await s.until(0, daemon)
  await during(s)
  await s.until(seconds)
  const stoppedAt = performance.now()
  await daemon.stop()
  await s.stop()
  if (s.samples.length === 0) throw new Error(`${name}: no request reached the sandbox\n${daemon.stderr()}`)
  const total = s.samples.at(-1)!
  const log = quotaLines(daemon.stderr())
  if (has("verbose")) for (const l of log) progress(`    ${l}`)
  return { dir, samples: s.samples, total, stoppedAt, stderr: daemon.stderr(), rateChanges: log.length, ...audit(dir) }
}

const r3 = (n: number) => Number(n.toFixed(3))
const results: Record<string, Array<Record<string, unknown>>> = {}
/** The second daemon of the `shared` case, stopped after the first. */
const shared: Array<ReturnType<typeof startDaemon>> = []
const keep = (name: string, out: Record<string, unknown>) => {
  progress(`  ${JSON.stringify({ ...out, perSecond: undefined })}`)
  const list = results[name] ?? []
  list.push(out)
  results[name] = list
}

for (let round = 1; round <= rounds; round++) {
  if (want("capacity")) {
    // what the daemon can send on this machine now, with no quota at all: the ceiling of every case
    progress(`round ${round}: capacity (no quota, ${SECONDS.capacity} s)`)
    const r = await runCase("capacity", false, SECONDS.capacity, undefined, {})
    const seconds = perSecond(r.samples, 2, SECONDS.capacity)
    keep("capacity", {
      perSecondOverQ: r3(seconds.reduce((a, b) => a + b, 0) / seconds.length / Q),
      perSecond: seconds
    })
  }
  if (want("unconfigured")) {
    progress(`round ${round}: unconfigured (${SECONDS.unconfigured} s)`)
    const r = await runCase("unconfigured", false, SECONDS.unconfigured)
    const first429 = Math.max(0, Math.floor((r.samples.find((x) => x.refused > 0)?.t ?? 0) / 1000))
    const from = first429 + 10
    const steady = between(r.samples, from, SECONDS.unconfigured)
    const out = {
      first429At: first429,
      secondsTo09Q: reach(r.samples, 0.9 * Q, first429, SECONDS.unconfigured),
      sustainedOverQ: r3(steady.ok / (SECONDS.unconfigured - from) / Q),
      share429: r3(steady.refused / Math.max(1, steady.ok + steady.refused)),
      refusedFirst10s: between(r.samples, first429, from).refused,
      perSecond: perSecond(r.samples, 0, SECONDS.unconfigured),
      stalls: stalls(r.samples, SECONDS.unconfigured),
      answered200: r.total.ok,
      answered429: r.total.refused,
      recorded: r.recorded,
      sinkLines: r.sinkLines,
      sinkDuplicates: r.sinkDuplicates,
      versionsPerItem: r.versionsPerItem
    }
    keep("unconfigured", out)
  }
  if (want("configured")) {
    progress(`round ${round}: configured = Q (${SECONDS.configured} s)`)
    const r = await runCase("configured", true, SECONDS.configured)
    const steady = between(r.samples, 1, SECONDS.configured)
    const seconds = perSecond(r.samples, 0, SECONDS.configured)
    const out = {
      fromSecond2OverQ: r3(steady.ok / (SECONDS.configured - 1) / Q),
      minSecondOverQ: r3(Math.min(...seconds.slice(1)) / Q),
      share429: r3(r.total.refused / Math.max(1, r.total.ok + r.total.refused)),
      perSecond: seconds,
      stalls: stalls(r.samples, SECONDS.configured),
      answered200: r.total.ok,
      answered429: r.total.refused,
      recorded: r.recorded,
      sinkLines: r.sinkLines,
      sinkDuplicates: r.sinkDuplicates,
      versionsPerItem: r.versionsPerItem
    }
    keep("configured", out)
  }
  if (want("storm")) {
    progress(
      `round ${round}: storm (${SECONDS.storm} s; ${LOW} Q during ${DROP.from}-${DROP.to} s and ${SHORT.from}-${SHORT.to} s)`
    )
    const r = await runCase("storm", true, SECONDS.storm, async (s) => {
      for (const [at, rate] of [
        [DROP.from, LOW * Q],
        [DROP.to, Q],
        [SHORT.from, LOW * Q],
        [SHORT.to, Q]
      ] as const) {
        await s.until(at)
        await sandbox.setQuotas(quota(rate))
      }
    })
    const drop = between(r.samples, DROP.from, DROP.to)
    const mid = (DROP.from + DROP.to) / 2
    const secondHalf = between(r.samples, mid, DROP.to)
    const short = between(r.samples, SHORT.from, SHORT.to)
    const out = {
      dropShare429: r3(drop.refused / Math.max(1, drop.ok + drop.refused)),
      dropSecondHalfOverLow: r3(secondHalf.ok / (DROP.to - mid) / (LOW * Q)),
      secondsTo09QAfterDrop: reach(r.samples, 0.9 * Q, DROP.to, SHORT.from),
      shortShare429: r3(short.refused / Math.max(1, short.ok + short.refused)),
      secondsTo09QAfterShort: reach(r.samples, 0.9 * Q, SHORT.to, SECONDS.storm),
      perSecond: perSecond(r.samples, 0, SECONDS.storm),
      stalls: stalls(r.samples, SECONDS.storm),
      answered200: r.total.ok,
      answered429: r.total.refused,
      recorded: r.recorded,
      sinkLines: r.sinkLines,
      sinkDuplicates: r.sinkDuplicates,
      versionsPerItem: r.versionsPerItem
    }
    keep("storm", out)
  }
  if (want("shared")) {
    progress(`round ${round}: two daemons sharing one quota, unconfigured (${SECONDS.shared} s)`)
    // both start together: under load a daemon started later sends its unlimited first second inside the window
    const r = await runCase("shared", false, SECONDS.shared, undefined, quota(Q), () => {
      const dir = tempDir("storm-shared-b")
      shared.push(startDaemon(dir, config(dir, false)))
    })
    const second = shared.pop()
    await second?.stop()
    const steady = between(r.samples, SHARED_FROM, SECONDS.shared)
    keep("shared", {
      togetherOverQ: r3(steady.ok / (SECONDS.shared - SHARED_FROM) / Q),
      share429: r3(steady.refused / Math.max(1, steady.ok + steady.refused)),
      share429Whole: r3(r.total.refused / Math.max(1, r.total.ok + r.total.refused)),
      perSecond: perSecond(r.samples, 0, SECONDS.shared),
      stalls: stalls(r.samples, SECONDS.shared)
    })
  }
  if (want("shutdown")) {
    progress(`round ${round}: SIGTERM after ${SECONDS.shutdown} s (unconfigured), restart, SIGTERM again`)
    await sandbox.setQuotas(quota(Q))
    const dir = tempDir("storm-shutdown")
    const before = await sandbox.answers()
    /** Starts the daemon on `dir`, SIGTERMs it once it has been answered for a while: answers 200 since `before`, the audit. */
    const runAndStop = async () => {
      const daemon = startDaemon(dir, config(dir, false))
      const s = sampler(sandbox)
      await s.until(SECONDS.shutdown, daemon)
      await daemon.stop()
      await s.stop()
      const after = await sandbox.answers()
      return { answered200: (after["200"] ?? 0) - (before["200"] ?? 0), ...audit(dir) }
    }
    const firstStop = await runAndStop()
    const secondStop = await runAndStop()
    const out = {
      firstStop: {
        answered200: firstStop.answered200,
        recordedAnalysed: firstStop.recordedAnalysed,
        sinkLines: firstStop.sinkLines
      },
      afterRestart: {
        answered200: secondStop.answered200,
        recordedAnalysed: secondStop.recordedAnalysed,
        sinkLines: secondStop.sinkLines,
        sinkDuplicates: secondStop.sinkDuplicates
      },
      /** answers 200 that left no record: analysed and lost, or analysed again after the restart */
      answeredNotRecorded: secondStop.answered200 - secondStop.recordedAnalysed
    }
    keep("shutdown", out)
  }
}
await sandbox.close()
await feed.close()

const result = { bench: "daemon-quota-storm", date: new Date().toISOString(), machine: machine(), Q, BURST, results }
console.log(JSON.stringify(result))
writeResult("daemon-quota-storm", result)

const col = <T>(name: string, f: (r: Record<string, unknown>) => T) => (results[name] ?? []).map(f)
const nums = (name: string, key: string) => col(name, (r) => r[key] as number)
const fmt = (name: string, key: string, digits = 3) => {
  const xs = nums(name, key)
  return xs.length === 0 ? "not run" : xs.every(Number.isFinite) ? spread(xs, digits) : xs.join(", ")
}
const stallText = (name: string) =>
  (results[name] ?? [])
    .map((r) => ((r.stalls as Array<number>).length === 0 ? "none" : (r.stalls as Array<number>).join(" ")))
    .join("; ") || "not run"
/** Duplicates in the sink and records per item version, over every run of the cases that check them. */
const dupText = () => {
  const runs = ["unconfigured", "configured", "storm"].flatMap((n) => results[n] ?? [])
  if (runs.length === 0) return "not run"
  const duplicates = runs.reduce((sum, r) => sum + (r.sinkDuplicates as number), 0)
  const perVersion = Math.max(...runs.map((r) => r.versionsPerItem as number))
  return `${duplicates} duplicates, at most ${perVersion} record per item (${runs.length} runs)`
}
if (!has("no-write") && onlyCase === undefined) {
  writeDocSection(
    "daemon-quota-storm",
    `## Daemon: quota storms (\`bench/daemon-quota-storm.ts\`)

Command: \`pnpm bench daemon-quota-storm\`. The sandbox enforces Q = ${Q} requests/s (burst ${BURST}) on \`analyzeText\`;
an RSS backlog of ${ITEMS} items (larger than any run), SQLite, a jsonl sink; the sandbox's answers counted every
250 ms; seconds are counted from the first answer. A stall is a window of one second with no request answered.
${rounds} round(s), median (min–max); the daemon ran ${has("source") ? "from its TypeScript source (`--source`)" : "built"}. Measured ${result.date.slice(0, 10)} on ${result.machine}.

| Case | measure | measured | target |
|---|---|---:|---:|
| no quota | answers 200 per second / Q (seconds 3–10): the daemon's own ceiling here | ${fmt("capacity", "perSecondOverQ")} | > 1 |
| unconfigured | s from the first 429 to a second with >= 0.9 Q | ${fmt("unconfigured", "secondsTo09Q", 0)} | <= 10 |
| | sustained / Q, from 10 s after the first 429 | ${fmt("unconfigured", "sustainedOverQ")} | >= 0.95 |
| | answered 429 over that window | ${fmt("unconfigured", "share429")} | <= 0.01 |
| | stalls | ${stallText("unconfigured")} | none |
| configured = Q | answers 200 / Q from the second second | ${fmt("configured", "fromSecond2OverQ")} | >= 0.95 |
| | weakest second / Q (from the second) | ${fmt("configured", "minSecondOverQ")} | |
| | stalls | ${stallText("configured")} | none |
| two daemons, one quota | together / Q, seconds ${SHARED_FROM}–${SECONDS.shared} | ${fmt("shared", "togetherOverQ")} | <= 1 |
| | answered 429, seconds ${SHARED_FROM}–${SECONDS.shared} (whole run) | ${fmt("shared", "share429")} (${fmt("shared", "share429Whole")}) | |
| storm (${LOW} Q for 20 s) | answered 429 during the drop | ${fmt("storm", "dropShare429")} | <= 0.05 |
| | accepted in its second half / ${LOW} Q | ${fmt("storm", "dropSecondHalfOverLow")} | >= 0.8 |
| | s after it ends to a second with >= 0.9 Q | ${fmt("storm", "secondsTo09QAfterDrop", 0)} | <= 10 |
| storm (${LOW} Q for 4 s) | s after it ends to a second with >= 0.9 Q | ${fmt("storm", "secondsTo09QAfterShort", 0)} | |
| | stalls (whole storm run) | ${stallText("storm")} | none |
| every case | jsonl duplicates, records per item version | ${dupText()} | 0, 1 |
| SIGTERM after ${SECONDS.shutdown} s | answers 200 / analysed records / jsonl lines at the stop | ${
      col("shutdown", (r) => {
        const f = r.firstStop as Record<string, number>
        return `${f.answered200} / ${f.recordedAnalysed} / ${f.sinkLines}`
      }).join("; ") || "not run"
    } | equal |
| | after a restart and a second SIGTERM: answers 200 that left no record | ${col("shutdown", (r) => r.answeredNotRecorded).join(", ") || "not run"} | 0 |

Per-second answers 200 (first round): unconfigured \`${(results.unconfigured?.[0]?.perSecond as Array<number> | undefined)?.join(" ") ?? "-"}\`;
storm \`${(results.storm?.[0]?.perSecond as Array<number> | undefined)?.join(" ") ?? "-"}\`.`
  )
}
process.exit(0)
