/**
 * The floor of the daemon's CPU per item: the Warden v1 client alone (`AnalyzeV1.text`: validation,
 * transport, limiter, decoding) sending `REQUEST` at concurrency 32 for a few seconds, in its own
 * process. Reports its process CPU per request over the measured window (a 1 s warm-up excluded).
 *
 *   node --conditions=@warden/source bench/support/client-floor.ts API_URL SECONDS
 */
import { v1Load } from "./client.ts"

const [url, secondsArg] = process.argv.slice(2) as [string, string]
const client = v1Load(url)
const run = async (seconds: number) => (await client.load(Date.now() + seconds * 1000, 32)).done
await run(1)
const cpu0 = process.cpuUsage()
const start = performance.now()
const requests = await run(Number(secondsArg))
const cpu = process.cpuUsage(cpu0)
const seconds = (performance.now() - start) / 1000
process.send!({ requests, seconds, cpuMicrosPerRequest: (cpu.user + cpu.system) / Math.max(1, requests) })
await client.dispose()
process.exit(0)
