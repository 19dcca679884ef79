/**
 * What the quota benchmarks read from the sandbox: its answers to `analyzeText` by status, counted
 * every 250 ms from the first answer of a case, and the figures made of those counts.
 */
import { type SandboxProcess, sleep } from "./common.ts"

export interface Sample {
  /** ms since the case's first answer */
  readonly t: number
  readonly ok: number
  readonly refused: number
}

/** Polls the sandbox's counters every 250 ms until stopped. */
export const sampler = (sandbox: SandboxProcess) => {
  const samples: Array<Sample> = []
  let running = true
  let t0 = 0
  const done = (async () => {
    const base = await sandbox.answers()
    const read = async () => {
      const a = await sandbox.answers()
      return { ok: (a["200"] ?? 0) - (base["200"] ?? 0), refused: (a["429"] ?? 0) - (base["429"] ?? 0) }
    }
    // the clock starts at the first answer of the case (the daemon's start-up is not measured)
    for (;;) {
      const c = await read()
      if (c.ok + c.refused > 0) break
      if (!running) return
      await sleep(20)
    }
    t0 = performance.now()
    const first = await read()
    samples.push({ t: 0, ...first })
    let next = 250
    while (running) {
      await sleep(Math.max(0, next - (performance.now() - t0)))
      samples.push({ t: performance.now() - t0, ...(await read()) })
      next += 250
    }
  })()
  return {
    samples,
    /** Resolves once `seconds` have passed since the first answer; fails if none comes within a minute. */
    until: async (seconds: number, daemon?: { exited: () => boolean; stderr: () => string }) => {
      const deadline = performance.now() + 60_000
      while (t0 === 0 || performance.now() - t0 < seconds * 1000) {
        if (t0 === 0 && (performance.now() > deadline || daemon?.exited() === true)) {
          throw new Error(`no request reached the sandbox\n${daemon?.stderr() ?? ""}`)
        }
        await sleep(50)
      }
    },
    stop: async () => {
      running = false
      await done
    }
  }
}

/** Answers in [from, to) seconds, by interpolating the cumulative samples. */
export const between = (samples: ReadonlyArray<Sample>, from: number, to: number) => {
  const at = (s: number) => {
    const ms = s * 1000
    let best = samples[0]!
    for (const x of samples) if (Math.abs(x.t - ms) < Math.abs(best.t - ms)) best = x
    return best
  }
  const a = at(from)
  const b = at(to)
  return { ok: b.ok - a.ok, refused: b.refused - a.refused }
}

/** Per-second answers 429 over [from, to). */
export const refusedPerSecond = (samples: ReadonlyArray<Sample>, from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) => between(samples, from + i, from + i + 1).refused)

/** Per-second answers 200 over [from, to). */
export const perSecond = (samples: ReadonlyArray<Sample>, from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) => between(samples, from + i, from + i + 1).ok)

/** Windows of one second (at 250 ms steps) with no request answered at all, within [0, end). */
export const stalls = (samples: ReadonlyArray<Sample>, end: number) => {
  const out: Array<number> = []
  for (let i = 0; i + 4 < samples.length && samples[i + 4]!.t <= end * 1000; i++) {
    const a = samples[i]!
    const b = samples[i + 4]!
    if (b.ok + b.refused === a.ok + a.refused) out.push(Number((a.t / 1000).toFixed(2)))
  }
  return out
}

/** The first second s in [from, to) with at least `rate` answers 200 in [s, s+1), as seconds after `from`. */
export const reach = (samples: ReadonlyArray<Sample>, rate: number, from: number, to: number) => {
  for (let s = from; s < to; s++) if (between(samples, s, s + 1).ok >= rate) return s - from
  return Number.POSITIVE_INFINITY
}

/** The limiter's log lines (rate changes, a configured rate above the learnt one), as `t message`. */
export const quotaLines = (stderr: string) =>
  stderr
    .split("\n")
    .filter((l) => l.includes('"quota'))
    .map((l) => {
      try {
        const j = JSON.parse(l) as { message: string; timestamp: string }
        return `${j.timestamp.slice(11, 23)} ${j.message}`
      } catch {
        return l
      }
    })
