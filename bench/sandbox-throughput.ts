/**
 * Throughput of the sandbox's `POST /analyze/v1/text` at concurrency 64, against a baseline measured
 * in the same run: a bare `node:http` server answering a fixed JSON body. The load comes from
 * separate child processes (keep-alive `node:http` clients), so the servers get this process alone.
 *
 *   pnpm exec node --conditions=@warden/source bench/sandbox-throughput.ts [--seconds 5] [--loaders 1]
 *
 * Prints progress, then one JSON line with the figures (also written to bench/results/ when it exists).
 */
import { fork } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import { Agent, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { availableParallelism, cpus } from "node:os"
import { Sandbox } from "../packages/sandbox/src/index.ts"

const CONCURRENCY = 64
const args = process.argv.slice(2)
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(args[i + 1])
}

const BODY = JSON.stringify({
  channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
  text: "you are such an idiot, I will find you",
  author: { username: "bob" }
})

// ---------------------------------------------------------------- load process
if (process.argv.includes("--load")) {
  const [url, concurrency, seconds] = [args[args.indexOf("--url") + 1]!, flag("concurrency", 32), flag("seconds", 5)]
  const target = new URL(url)
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const headers = {
    "content-type": "application/json",
    authorization: "ApiKey sandbox-standard-key",
    "content-length": Buffer.byteLength(BODY)
  }
  let done = 0
  let errors = 0
  let measuring = false
  const one = () =>
    new Promise<void>((resolve) => {
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers },
        (res) => {
          res.resume()
          res.on("end", () => {
            if (measuring) {
              if (res.statusCode === 200) done++
              else errors++
            }
            resolve()
          })
        }
      )
      req.on("error", () => {
        if (measuring) errors++
        resolve()
      })
      req.end(BODY)
    })
  let running = true
  const loop = async () => {
    while (running) await one()
  }
  const loops = Array.from({ length: concurrency }, loop)
  setTimeout(() => {
    measuring = true
  }, 1000)
  setTimeout(
    async () => {
      running = false
      await Promise.all(loops)
      process.send!({ done, errors, seconds })
      process.exit(0)
    },
    1000 + seconds * 1000
  )
} else {
  const seconds = flag("seconds", 5)
  const loaders = flag("loaders", 1)
  const measure = async (label: string, url: string): Promise<{ rps: number; errors: number }> => {
    process.stdout.write(
      `${label}: ${loaders} load processes x ${CONCURRENCY / loaders} connections, ${seconds}s (+1s warm-up) ... `
    )
    const results = await Promise.all(
      Array.from(
        { length: loaders },
        () =>
          new Promise<{ done: number; errors: number }>((resolve, reject) => {
            const child = fork(
              new URL(import.meta.url).pathname,
              ["--load", "--url", url, "--concurrency", String(CONCURRENCY / loaders), "--seconds", String(seconds)],
              { execArgv: [] }
            )
            child.on("message", (m) => resolve(m as { done: number; errors: number }))
            child.on("error", reject)
          })
      )
    )
    const done = results.reduce((n, r) => n + r.done, 0)
    const errors = results.reduce((n, r) => n + r.errors, 0)
    const rps = Math.round(done / seconds)
    console.log(`${rps} requests/s (${errors} errors)`)
    return { rps, errors }
  }

  const fixed = JSON.stringify({
    textAnalysis: {
      type: "HATEFUL",
      classifications: ["INSULT"],
      severity: "MEDIUM",
      directedAt: "SINGLE_PERSON",
      language: "en",
      recommendedAction: "REMOVE"
    }
  })
  const bare = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(fixed) })
      res.end(fixed)
    })
  })
  await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r))
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/analyze/v1/text`
  const baseline = await measure("baseline (bare node:http, fixed JSON)", bareUrl)
  await new Promise<void>((r) => bare.close(() => r()))

  const sandbox = await Sandbox.startPromise({ requestLogSize: 1000 })
  const result = await measure("sandbox POST /analyze/v1/text", `${sandbox.url}/analyze/v1/text`)
  const stats = sandbox.server.engine.log.stats()
  await sandbox.close()

  const summary = {
    bench: "sandbox-throughput",
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: availableParallelism(),
    concurrency: CONCURRENCY,
    seconds,
    loaders,
    baselineRps: baseline.rps,
    sandboxRps: result.rps,
    ratio: Number((result.rps / baseline.rps).toFixed(2)),
    errors: baseline.errors + result.errors,
    sandboxAnswers: stats.byEndpoint.analyzeText ?? {}
  }
  console.log(JSON.stringify(summary))
  const dir = new URL("./results/", import.meta.url)
  if (existsSync(dir)) writeFileSync(new URL("sandbox-throughput.json", dir), `${JSON.stringify(summary, null, 2)}\n`)
}
