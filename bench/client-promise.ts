/**
 * The Promise client (`new Warden()`, `await warden.analyze.text(...)`) against the Effect client
 * (`AnalyzeV1.text` on a shared `ManagedRuntime`) in the same run, against the sandbox in a child
 * process: time per call one at a time, throughput and CPU per request at concurrency 64. Then what an
 * application installs: `@warden/v1` from its `pnpm pack` tarballs with npm in an empty folder next to
 * `effect`: `node_modules` size without `effect`, the packages installed (no `redis`, no `ws`), and the
 * time `import("@warden/v1")` takes in a fresh Node process.
 *
 *   pnpm exec node --conditions=@warden/source bench/client-promise.ts [--seconds 2] [--rounds 6] [--skip-install]
 *
 * Needs the packages built for the install part (`pnpm build`). Prints progress, then one JSON line.
 * Targets: Promise / Effect <= 1.1 (time per call and CPU per request); node_modules without effect
 * <= 15 MB, no redis/ws; import <= 250 ms.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { AnalyzeV1, V1Client, Warden } from "../packages/v1/src/index.ts"
import { Effect, ManagedRuntime, REQUEST } from "./support/client.ts"
import { flag, has, KEY, median, root, startSandbox, tempDir } from "./support/common.ts"

const CONCURRENCY = 64

async function calls(url: string, seconds: number, rounds: number) {
  const runtime = ManagedRuntime.make(V1Client.layerOptions({ apiKey: KEY, baseUrls: { global: url } }))
  const warden = new Warden({ apiKey: KEY, baseUrl: url, env: {} })
  // the same loop for both: `call` is one awaited call
  const effectCall = () => runtime.runPromise(AnalyzeV1.AnalyzeV1.use((a) => a.text(REQUEST)))
  const promiseCall = () => warden.analyze.text(REQUEST)
  // the Effect client as Effect code runs it: workers inside one runPromise
  const effectWorkers = (until: number, concurrency: number) =>
    runtime.runPromise(
      Effect.gen(function* () {
        const analyze = yield* AnalyzeV1.AnalyzeV1
        let done = 0
        const worker = Effect.gen(function* () {
          while (Date.now() < until) {
            const answer = yield* analyze.text(REQUEST)
            if (answer.textAnalysis) done++
          }
        })
        yield* Effect.all(
          Array.from({ length: concurrency }, () => worker),
          { concurrency: "unbounded" }
        )
        return done
      })
    )
  const promiseWorkers = async (until: number, concurrency: number, call: typeof promiseCall) => {
    let done = 0
    const worker = async () => {
      while (Date.now() < until) {
        const answer = await call()
        if (answer.textAnalysis) done++
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    return done
  }
  const contenders = {
    effect: (until: number, c: number) => effectWorkers(until, c),
    "effect-runPromise": (until: number, c: number) => promiseWorkers(until, c, effectCall),
    promise: (until: number, c: number) => promiseWorkers(until, c, promiseCall)
  } as const
  type Name = keyof typeof contenders
  const measure = async (name: Name, concurrency: number, s: number) => {
    const cpu0 = process.cpuUsage()
    const start = performance.now()
    const done = await contenders[name](Date.now() + s * 1000, concurrency)
    const elapsedMs = performance.now() - start
    const cpu = process.cpuUsage(cpu0)
    return {
      perCallMicros: (elapsedMs * 1000) / done,
      cpuMicros: (cpu.user + cpu.system) / done,
      rps: (done * 1000) / elapsedMs
    }
  }
  const names: Array<Name> = ["effect", "effect-runPromise", "promise"]
  console.error("warm-up")
  for (const n of names) await measure(n, CONCURRENCY, 1)
  type Figures = { perCallMicros: Array<number>; cpuMicros: Array<number>; rps: Array<number> }
  const out: Record<string, Record<Name, Figures>> = {}
  for (const [label, concurrency] of [
    ["sequential", 1],
    [`concurrency ${CONCURRENCY}`, CONCURRENCY]
  ] as const) {
    const per = {} as Record<Name, Figures>
    for (const n of names) per[n] = { perCallMicros: [], cpuMicros: [], rps: [] }
    for (let round = 1; round <= rounds; round++) {
      // rotate the order so none always runs on a warmer (or more tired) sandbox
      const order = names.map((_, i) => names[(i + round) % names.length]!)
      for (const n of order) {
        const r = await measure(n, concurrency, seconds)
        per[n].perCallMicros.push(r.perCallMicros)
        per[n].cpuMicros.push(r.cpuMicros)
        per[n].rps.push(r.rps)
      }
      console.error(
        `${label} round ${round}/${rounds}: ${names.map((n) => `${n} ${per[n].perCallMicros.at(-1)!.toFixed(0)} µs/call ${per[n].cpuMicros.at(-1)!.toFixed(0)} µs CPU`).join(" | ")}`
      )
    }
    out[label] = per
  }
  await warden.close()
  await runtime.dispose()
  const summary = Object.fromEntries(
    Object.entries(out).map(([label, per]) => {
      const m = (n: Name, k: "perCallMicros" | "cpuMicros" | "rps") => median(per[n][k])
      // per-round ratios, paired: each round ran the contenders back to back
      const ratio = (k: "perCallMicros" | "cpuMicros") =>
        Number(median(per.promise[k].map((p, i) => p / per.effect[k][i]!)).toFixed(3))
      return [
        label,
        {
          perCallMicros: Object.fromEntries(names.map((n) => [n, Math.round(m(n, "perCallMicros"))])),
          cpuMicrosPerRequest: Object.fromEntries(names.map((n) => [n, Math.round(m(n, "cpuMicros"))])),
          rps: Object.fromEntries(names.map((n) => [n, Math.round(m(n, "rps"))])),
          promiseOverEffect: { perCall: ratio("perCallMicros"), cpu: ratio("cpuMicros") }
        }
      ]
    })
  )
  return summary
}

/** Bytes under a directory. */
const sizeOf = (dir: string): number => {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += sizeOf(path)
    else if (entry.isFile()) total += statSync(path).size
  }
  return total
}

/** Packages installed under node_modules (scoped names included). */
const packagesIn = (modules: string): Array<string> =>
  readdirSync(modules)
    .filter((e) => !e.startsWith("."))
    .flatMap((e) => (e.startsWith("@") ? readdirSync(join(modules, e)).map((s) => `${e}/${s}`) : [e]))

function install() {
  const unbuilt = ["core", "transport", "v1"].filter((p) => !existsSync(join(root, "packages", p, "dist")))
  if (unbuilt.length > 0) throw new Error(`build first (pnpm build): no dist/ in packages ${unbuilt.join(", ")}`)
  const work = tempDir("install")
  try {
    const tgz = join(work, "tgz")
    for (const p of ["core", "transport", "v1"]) {
      execFileSync("pnpm", ["pack", "--pack-destination", tgz], { cwd: join(root, "packages", p), stdio: "ignore" })
    }
    const app = join(work, "app")
    execFileSync("mkdir", ["-p", app])
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }))
    const effect = JSON.parse(
      execFileSync("npm", ["pkg", "get", "devDependencies.effect"], {
        cwd: join(root, "packages", "v1"),
        encoding: "utf8"
      })
    )
    execFileSync(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
        `effect@${effect}`,
        ...readdirSync(tgz).map((f) => join(tgz, f))
      ],
      { cwd: app, stdio: ["ignore", "ignore", "inherit"] }
    )
    const modules = join(app, "node_modules")
    const packages = packagesIn(modules)
    const total = sizeOf(modules)
    const effectBytes = sizeOf(join(modules, "effect"))
    const times: Array<number> = []
    const wall: Array<number> = []
    for (let i = 0; i < 7; i++) {
      const start = performance.now()
      const out = execFileSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          'const t = performance.now(); await import("@warden/v1"); console.log(performance.now() - t)'
        ],
        { cwd: app, encoding: "utf8" }
      )
      wall.push(performance.now() - start)
      times.push(Number(out.trim()))
    }
    return {
      packages,
      forbidden: packages.filter((p) => p === "ws" || p === "redis" || p.startsWith("@redis/")),
      nodeModulesMB: Number((total / 1e6).toFixed(1)),
      withoutEffectMB: Number(((total - effectBytes) / 1e6).toFixed(1)),
      importMs: Math.round(median(times)),
      processWithImportMs: Math.round(median(wall)),
      effect
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

async function main() {
  const seconds = flag("seconds", 2)
  const rounds = flag("rounds", 6)
  const sandbox = await startSandbox()
  console.error(
    `sandbox (child process ${sandbox.pid}) at ${sandbox.url}; ${rounds} rounds of ${seconds}s per contender`
  )
  const perCall = await calls(sandbox.url, seconds, rounds)
  await sandbox.close()
  const installed = has("skip-install") ? undefined : install()
  const result = {
    bench: "client-promise",
    seconds,
    rounds,
    calls: perCall,
    install: installed,
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}`,
    date: new Date().toISOString()
  }
  for (const [label, s] of Object.entries(perCall)) {
    console.error(
      `${label}: Promise / Effect = ${s.promiseOverEffect.perCall} per call, ${s.promiseOverEffect.cpu} CPU (target <= 1.1)`
    )
  }
  if (installed !== undefined) {
    console.error(
      `install: ${installed.withoutEffectMB} MB without effect (target <= 15), forbidden: [${installed.forbidden.join(", ")}], import ${installed.importMs} ms (target <= 250)`
    )
  }
  console.log(JSON.stringify(result))
}

await main()
