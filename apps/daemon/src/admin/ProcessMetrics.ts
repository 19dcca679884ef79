/**
 * The metrics every Prometheus exporter is expected to have beside its own: `warden_build_info`
 * (value 1, the version and Node version as labels, so a dashboard can show what runs and alert on
 * mixed versions) and the process's CPU, memory, heap, start time and event-loop lag, under the
 * `process_*` and `nodejs_*` names of prom-client so existing dashboards read them. Refreshed at each
 * scrape of `/metrics`.
 */
import { monitorEventLoopDelay } from "node:perf_hooks"
import { Effect, Metric } from "effect"
import { version } from "../Version.ts"

/** `warden_build_info{version,node}` = 1. */
export const buildInfo = Metric.gauge("warden_build_info", {
  description: "Always 1; the labels say which warden and which Node.js run"
})
const cpu = Metric.gauge("process_cpu_seconds_total", { description: "User and system CPU time spent, in seconds" })
const rss = Metric.gauge("process_resident_memory_bytes", { description: "Resident memory size, in bytes" })
const start = Metric.gauge("process_start_time_seconds", {
  description: "Start time of the process since the Unix epoch, in seconds"
})
const heapUsed = Metric.gauge("nodejs_heap_size_used_bytes", { description: "V8 heap in use, in bytes" })
const heapTotal = Metric.gauge("nodejs_heap_size_total_bytes", { description: "V8 heap allocated, in bytes" })
const lag = Metric.gauge("nodejs_eventloop_lag_p99_seconds", {
  description: "99th percentile of the event loop's delay since the previous scrape, in seconds"
})

/** When the process started, in epoch seconds (the wall clock's reading as `performance` began counting). */
const startedAt = performance.timeOrigin / 1000
// A sample every 100 ms: at 20 ms its timer woke the idle event loop 50 times a second, ~2 ms of CPU per
// second (a quarter of an idle daemon's, docs/BENCHMARKS.md, "An idle daemon, halved"); the p99 of ~10 samples a
// second still shows any stall longer than 100 ms at its length.
const histogram = monitorEventLoopDelay({ resolution: 100 })
histogram.enable()

/** Sets every gauge to the process's current values. */
export const update = Effect.gen(function* () {
  yield* Metric.update(Metric.withAttributes(buildInfo, { version, node: process.versions.node }), 1)
  const usage = process.cpuUsage()
  yield* Metric.update(cpu, (usage.user + usage.system) / 1e6)
  const memory = process.memoryUsage()
  yield* Metric.update(rss, memory.rss)
  yield* Metric.update(heapUsed, memory.heapUsed)
  yield* Metric.update(heapTotal, memory.heapTotal)
  yield* Metric.update(start, startedAt)
  yield* Metric.update(lag, histogram.percentile(99) / 1e9)
  histogram.reset()
})
