/**
 * A statement timer for the daemon under a benchmark: preloaded with
 * `BENCH_DAEMON_NODE_OPTIONS="--import=./bench/support/sql-counter.ts"` and `BENCH_SQL_COUNTS=FILE`,
 * it wraps `node:sqlite`'s statement methods, counts and times every statement by its SQL text, and
 * writes `{ statements: [{ sql, count, millis, cpuMillis }] }` to FILE when the process exits. Nothing of the
 * daemon changes; the wrapping costs ~1-2 µs per statement.
 *
 * `millis` is wall time, `cpuMillis` the main thread's own CPU time over the same statements. On a busy
 * machine they differ by a lot (at the quota, 1,198 ms wall against 445 ms CPU in one run): a statement's
 * wall time includes the moments its thread was descheduled, and so does a `--cpu-prof` profile's self
 * time, which samples wall time.
 */
import { writeFileSync } from "node:fs"
import { DatabaseSync, StatementSync } from "node:sqlite"

// biome-ignore lint/suspicious/noUndeclaredEnvVars: a knob of the benchmarks, which are not a turbo task
const out = process.env.BENCH_SQL_COUNTS
if (out !== undefined) {
  const stats = new Map<string, { count: number; nanos: bigint; cpuMicros: number }>()
  // The calling thread's CPU time in µs (Node >= 23.9; process-wide on older ones, still a bound).
  const threadCpu = (): number => {
    const usage = process.threadCpuUsage?.() ?? process.cpuUsage()
    return usage.user + usage.system
  }
  const key = (sql: string) =>
    sql
      .replace(/\s+/gu, " ")
      .replace(/\(\?(, ?\?)*\)(, ?\(\?(, ?\?)*\))*/gu, "(?...)")
      .replace(/IN \(\?(, ?\?)*\)/gu, "IN (?...)")
      .slice(0, 160)
  const time = (sql: string, started: bigint, cpuStarted: number) => {
    const k = key(sql)
    const s = stats.get(k) ?? { count: 0, nanos: 0n, cpuMicros: 0 }
    s.count++
    s.nanos += process.hrtime.bigint() - started
    s.cpuMicros += threadCpu() - cpuStarted
    stats.set(k, s)
  }
  const proto = StatementSync.prototype as unknown as Record<string, (...args: Array<unknown>) => unknown> & {
    readonly sourceSQL: string
  }
  for (const method of ["all", "run", "get", "iterate"] as const) {
    const original = proto[method]!
    proto[method] = function (this: StatementSync, ...args: Array<unknown>) {
      const started = process.hrtime.bigint()
      const cpuStarted = threadCpu()
      try {
        return original.apply(this, args)
      } finally {
        time(this.sourceSQL, started, cpuStarted)
      }
    }
  }
  const exec = DatabaseSync.prototype.exec
  DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
    const started = process.hrtime.bigint()
    const cpuStarted = threadCpu()
    try {
      return exec.call(this, sql)
    } finally {
      time(sql, started, cpuStarted)
    }
  }
  process.on("exit", () => {
    const statements = [...stats.entries()]
      .map(([sql, s]) => ({ sql, count: s.count, millis: Number(s.nanos) / 1e6, cpuMillis: s.cpuMicros / 1000 }))
      .sort((a, b) => b.millis - a.millis)
    writeFileSync(out, JSON.stringify({ statements }, null, 1))
  })
}
