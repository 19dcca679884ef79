/**
 * The floor of a push check's latency: the Warden v1 client alone (`AnalyzeV1.text`) calling the API at
 * `RATE` requests/s for `SECONDS` (a new text each call, issued on a fixed schedule whatever the answers,
 * as the load generator does), in its own process. Reports each call's latency percentiles and the
 * process CPU per call.
 *
 *   node --conditions=@warden/source bench/support/check-floor.ts API_URL RATE SECONDS QUOTA
 */
import { AnalyzeV1, V1Client } from "../../packages/v1/src/index.ts"
import { Effect, ManagedRuntime } from "./client.ts"
import { CHANNEL, KEY } from "./common.ts"

const [url, rateArg, secondsArg, quotaArg] = process.argv.slice(2) as [string, string, string, string]
const rate = Number(rateArg)
const runtime = ManagedRuntime.make(
  // the quota the daemon's limiter is given too (without it the limiter starts slow and learns it from 429s)
  V1Client.layerOptions({
    apiKey: KEY,
    baseUrls: { global: url },
    timeout: "10 seconds",
    quotas: { endpoints: { analyzeText: { requestsPerSecond: Number(quotaArg) } } }
  })
)
const analyze = await runtime.runPromise(
  Effect.gen(function* () {
    return yield* AnalyzeV1.AnalyzeV1
  })
)
let n = 0
const call = async (): Promise<number> => {
  const started = performance.now()
  await runtime.runPromise(analyze.text({ channelId: CHANNEL, text: `a comment to check, number ${n++} of the floor` }))
  return performance.now() - started
}
const run = async (seconds: number) => {
  const latencies: Array<number> = []
  const calls: Array<Promise<void>> = []
  const start = performance.now()
  for (let i = 0; i < rate * seconds; i++) {
    const due = start + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    // latency from the call's due time, as autocannon corrects for coordinated omission
    const late = performance.now() - due
    calls.push(call().then((ms) => void latencies.push(ms + late)))
  }
  await Promise.all(calls)
  return latencies.sort((a, b) => a - b)
}
await run(1)
const cpu0 = process.cpuUsage()
const latencies = await run(Number(secondsArg))
const cpu = process.cpuUsage(cpu0)
const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!
process.send!({
  calls: latencies.length,
  p50: at(50),
  p99: at(99),
  cpuMicrosPerCall: (cpu.user + cpu.system) / Math.max(1, latencies.length)
})
await runtime.dispose()
process.exit(0)
