/**
 * Throughput of `AnalyzeV1.text` (validation, transport, limiter, retries, telemetry, decoding) at
 * concurrency 64 against the sandbox, divided by the throughput of a raw undici `Pool` sending the
 * same request bodies to the same sandbox in the same run. The sandbox runs in a child process, so
 * the client under test gets this process alone; the two contenders alternate over several rounds.
 *
 *   pnpm exec node --conditions=@warden/source bench/client-throughput.ts [--seconds 3] [--rounds 10] [--client-only]
 *
 * Prints progress, then one JSON line with the figures: `ratio` is the median of the per-round ratios
 * (each round runs both back to back, in alternating order). Target: ratio >= 0.90.
 */
import { createRequire } from "node:module"
import { cpus } from "node:os"
import { Version } from "../packages/transport/src/index.ts"
import { REQUEST, v1Load } from "./support/client.ts"
import { flag, has, KEY, median, startSandbox } from "./support/common.ts"

const CONCURRENCY = 64

await main()

async function main() {
  const seconds = flag("seconds", 3)
  const rounds = flag("rounds", 10)
  const sandbox = await startSandbox()
  const url = sandbox.url
  console.error(
    `sandbox (child process ${sandbox.pid}) at ${url}; concurrency ${CONCURRENCY}, ${rounds} rounds of ${seconds}s each`
  )

  // raw undici, the same version the client runs on
  const require = createRequire(new URL("../packages/transport/package.json", import.meta.url))
  const { Pool } = require("undici") as typeof import("undici")
  const pool = new Pool(url, { connections: CONCURRENCY })
  const body = JSON.stringify(REQUEST)
  // the same headers the client sends: the sandbox does the same work for both
  const headers = {
    accept: "application/json",
    "content-type": "application/json",
    "user-agent": Version.userAgent(),
    authorization: `ApiKey ${KEY}`
  }
  const raw = async (until: number) => {
    let done = 0
    let errors = 0
    const worker = async () => {
      while (Date.now() < until) {
        const res = await pool.request({
          path: "/analyze/v1/text",
          method: "POST",
          headers: { ...headers, "x-request-id": crypto.randomUUID() },
          body
        })
        const text = await res.body.text()
        if (res.statusCode === 200 && JSON.parse(text).textAnalysis) done++
        else errors++
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    return { done, errors }
  }

  // the Warden client
  const warden = v1Load(url)
  const client = (until: number) => warden.load(until, CONCURRENCY)

  const measure = async (
    name: string,
    run: (until: number) => Promise<{ done: number; errors: number }>,
    s: number
  ) => {
    const start = performance.now()
    const cpu0 = process.cpuUsage()
    const { done, errors } = await run(Date.now() + s * 1000)
    const cpu = process.cpuUsage(cpu0)
    const elapsed = (performance.now() - start) / 1000
    const rps = done / elapsed
    const cpuPerRequest = (cpu.user + cpu.system) / Math.max(1, done)
    console.error(
      `  ${name.padEnd(7)} ${rps.toFixed(0).padStart(7)} req/s  ${cpuPerRequest.toFixed(0).padStart(4)} µs CPU/request here  (${done} ok, ${errors} errors, ${elapsed.toFixed(2)} s)`
    )
    return { rps, done, errors, cpuPerRequest }
  }

  if (has("client-only")) {
    // for profiling the client alone: node --cpu-prof ... --client-only
    await measure("client", client, 2)
    await measure("client", client, seconds)
    await warden.dispose()
    await pool.close()
    await sandbox.close()
    return
  }
  console.error("warm-up")
  await measure("raw", raw, 1)
  await measure("client", client, 1)
  const rawRuns: Array<number> = []
  const clientRuns: Array<number> = []
  const rawCpu: Array<number> = []
  const clientCpu: Array<number> = []
  let errors = 0
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round}/${rounds}`)
    // alternate the order so neither always runs on a warmer (or more tired) sandbox
    const order = round % 2 === 1 ? (["raw", "client"] as const) : (["client", "raw"] as const)
    for (const name of order) {
      const r = await measure(name, name === "raw" ? raw : client, seconds)
      errors += r.errors
      ;(name === "raw" ? rawRuns : clientRuns).push(r.rps)
      ;(name === "raw" ? rawCpu : clientCpu).push(r.cpuPerRequest)
    }
  }
  const mean = (xs: Array<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
  // each round compares the two back to back, so a round's ratio is the least disturbed by other load
  const perRound = rawRuns.map((r, i) => clientRuns[i]! / r)
  const result = {
    bench: "client-throughput",
    concurrency: CONCURRENCY,
    seconds,
    rounds,
    rawRps: Math.round(mean(rawRuns)),
    clientRps: Math.round(mean(clientRuns)),
    ratio: Number(median(perRound).toFixed(3)),
    ratioOfMeans: Number((mean(clientRuns) / mean(rawRuns)).toFixed(3)),
    perRound: perRound.map((r) => Number(r.toFixed(3))),
    cpuMicrosPerRequest: { raw: Math.round(median(rawCpu)), client: Math.round(median(clientCpu)) },
    errors,
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}`,
    date: new Date().toISOString()
  }
  console.error(
    `ratio (client / raw undici), median of ${rounds} rounds: ${result.ratio} (target >= 0.90); ratio of means ${result.ratioOfMeans}`
  )
  console.log(JSON.stringify(result))
  await warden.dispose()
  await pool.close()
  await sandbox.close()
}
