/**
 * The Promise client (`new Warden()`, `await warden.analyze.text(...)`) against the Effect client
 * (`AnalyzeV1.text` on a shared `ManagedRuntime`) in the same run, against the sandbox in a child
 * process: time per call one at a time, throughput and CPU per request at concurrency 64. Then what an
 * application installs: `@warden/v1` from its `pnpm pack` tarballs with npm in an empty folder next to
 * `effect`: `node_modules` size without `effect`, the packages installed (no `redis`, no `ws`), and the
 * time `import("@warden/v1")` takes in a fresh Node process, next to `import("effect")` (the barrel)
 * and `import("undici")` timed in the same run (`--imports N` processes each, interleaved); and what
 * the first call costs after that import, made at once or 3 s after `new Warden()` (`--first-calls N`);
 * and how late a per-call `timeout` rejects, beside a plain timer's lateness (`--deadlines N` calls).
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
import { AnalyzeV1, TimeoutError, V1Client, Warden } from "../packages/v1/src/index.ts"
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

/**
 * How late a per-call `timeout` rejects: calls to a sandbox that stalls every answer, each with
 * `{ timeout }`, one after the other; beside each, a plain `setTimeout` of the same length started at
 * the same moment (the event loop's own lateness on this machine, the baseline). Reports the median and
 * p95 lateness of both, and of the difference (deadline minus timer) per call.
 */
async function deadlines(sandbox: Awaited<ReturnType<typeof startSandbox>>, count: number, timeoutMs = 300) {
  await sandbox.setFaults({ stall: 1, stallMs: 30_000 })
  const warden = new Warden({ apiKey: KEY, baseUrl: sandbox.url, env: {} })
  const deadline: Array<number> = []
  const timer: Array<number> = []
  try {
    for (let i = 0; i < count; i++) {
      const start = performance.now()
      const plain = new Promise<number>((resolve) => setTimeout(() => resolve(performance.now()), timeoutMs))
      const rejectedAt = await warden.analyze.text(REQUEST, { timeout: timeoutMs }).then(
        () => {
          throw new Error("a stalled call answered")
        },
        (e: unknown) => {
          if (!(e instanceof TimeoutError)) throw e
          return performance.now()
        }
      )
      deadline.push(rejectedAt - start - timeoutMs)
      timer.push((await plain) - start - timeoutMs)
    }
  } finally {
    await warden.close()
    await sandbox.setFaults({})
  }
  const p95 = (xs: ReadonlyArray<number>) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!
  const figures = (xs: ReadonlyArray<number>) => ({
    medianMs: Number(median([...xs]).toFixed(1)),
    p95Ms: Number(p95(xs).toFixed(1))
  })
  return {
    timeoutMs,
    calls: count,
    lateness: figures(deadline),
    plainTimerLateness: figures(timer),
    overPlainTimer: figures(deadline.map((d, i) => d - timer[i]!))
  }
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

/** One fresh Node process importing `spec` in `cwd`: the import's wall and CPU time, and modules loaded. */
const importOnce = (cwd: string, spec: string, count: boolean) => {
  const hooks = count
    ? 'import { registerHooks } from "node:module"; let n = 0; registerHooks({ load: (u, c, next) => (n++, next(u, c)) }); globalThis.count = () => n;'
    : "globalThis.count = () => 0;"
  const script = `${hooks}
const c = process.cpuUsage(); const t = performance.now()
await import(${JSON.stringify(spec)})
const cpu = process.cpuUsage(c)
console.log(JSON.stringify({ ms: performance.now() - t, cpuMs: (cpu.user + cpu.system) / 1000, modules: globalThis.count() }))`
  return JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd, encoding: "utf8" }).trim()
  ) as { ms: number; cpuMs: number; modules: number }
}

/**
 * `import(spec)` for each spec, `runs` fresh processes each, interleaved so that each spec sees the
 * same machine load: median and minimum wall time, median CPU time, and (one more process each, with
 * a module hook that would skew the times) the number of modules loaded.
 */
function timeImports(cwd: string, specs: ReadonlyArray<string>, runs: number) {
  const samples = new Map(specs.map((s) => [s, [] as Array<{ ms: number; cpuMs: number }>]))
  for (let i = 0; i < runs; i++) for (const spec of specs) samples.get(spec)!.push(importOnce(cwd, spec, false))
  return Object.fromEntries(
    specs.map((spec) => {
      const xs = samples.get(spec)!
      return [
        spec,
        {
          ms: Math.round(median(xs.map((x) => x.ms))),
          minMs: Math.round(Math.min(...xs.map((x) => x.ms))),
          cpuMs: Math.round(median(xs.map((x) => x.cpuMs))),
          modules: importOnce(cwd, spec, true).modules
        }
      ]
    })
  )
}

/**
 * A fresh process that imports `@warden/v1`, makes a client, waits `gapMs`, then calls twice against
 * `url`: CPU and wall time of each step. With a gap the constructor's background build (transport,
 * schemas, undici) is done before the first call; without, the first call waits for it.
 */
const firstCallOnce = (cwd: string, url: string, gapMs: number) => {
  const script = `const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const t0 = performance.now(), c0 = cpu()
const { Warden } = await import("@warden/v1")
const t1 = performance.now(), c1 = cpu()
const warden = new Warden()
await new Promise((r) => setTimeout(r, ${gapMs}))
const t2 = performance.now(), c2 = cpu()
const body = { channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c", text: "you idiot" }
await warden.analyze.text(body)
const t3 = performance.now(), c3 = cpu()
await warden.analyze.text(body)
const t4 = performance.now(), c4 = cpu()
await warden.close()
console.log(JSON.stringify({ importMs: t1 - t0, importCpuMs: c1 - c0, firstCallMs: t3 - t2, untilFirstAnswerCpuMs: c3 - c0, secondCallMs: t4 - t3 }))`
  return JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, WARDEN_API_KEY: KEY, WARDEN_BASE_URL: url }
    }).trim()
  ) as {
    importMs: number
    importCpuMs: number
    firstCallMs: number
    untilFirstAnswerCpuMs: number
    secondCallMs: number
  }
}

/** `firstCallOnce` `runs` times with no gap and with a 3 s gap: medians. */
function timeFirstCalls(cwd: string, url: string, runs: number) {
  const summary = (gapMs: number) => {
    const xs = Array.from({ length: runs }, () => firstCallOnce(cwd, url, gapMs))
    const m = (k: keyof (typeof xs)[number]) => Math.round(median(xs.map((x) => x[k])))
    return {
      firstCallMs: m("firstCallMs"),
      untilFirstAnswerCpuMs: m("untilFirstAnswerCpuMs"),
      secondCallMs: m("secondCallMs")
    }
  }
  return { callRightAway: summary(0), callAfter3s: summary(3000) }
}

function install(url: string) {
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
    const imports = timeImports(app, ["@warden/v1", "effect", "undici"], flag("imports", 9))
    const firstCalls = timeFirstCalls(app, url, flag("first-calls", 3))
    return {
      packages,
      forbidden: packages.filter((p) => p === "ws" || p === "redis" || p.startsWith("@redis/")),
      nodeModulesMB: Number((total / 1e6).toFixed(1)),
      withoutEffectMB: Number(((total - effectBytes) / 1e6).toFixed(1)),
      importMs: imports["@warden/v1"]!.ms,
      imports,
      // the same run's baselines: what importing effect's barrel, and undici, cost on this machine now
      importRatio: {
        overEffect: Number((imports["@warden/v1"]!.ms / imports.effect!.ms).toFixed(2)),
        overUndici: Number((imports["@warden/v1"]!.ms / imports.undici!.ms).toFixed(2)),
        cpuOverEffect: Number((imports["@warden/v1"]!.cpuMs / imports.effect!.cpuMs).toFixed(2))
      },
      firstCalls,
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
  const deadline = await deadlines(sandbox, flag("deadlines", 20))
  const installed = has("skip-install") ? undefined : install(sandbox.url)
  await sandbox.close()
  const result = {
    bench: "client-promise",
    seconds,
    rounds,
    calls: perCall,
    deadline,
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
  console.error(
    `deadline: a ${deadline.timeoutMs} ms timeout rejects ${deadline.lateness.medianMs} ms late (p95 ${deadline.lateness.p95Ms}); a plain timer ${deadline.plainTimerLateness.medianMs} ms (p95 ${deadline.plainTimerLateness.p95Ms}); difference ${deadline.overPlainTimer.medianMs} ms (p95 ${deadline.overPlainTimer.p95Ms})`
  )
  if (installed !== undefined) {
    const { callRightAway, callAfter3s } = installed.firstCalls
    console.error(
      `first call: ${callRightAway.firstCallMs} ms at once (${callRightAway.untilFirstAnswerCpuMs} ms CPU from import to answer), ${callAfter3s.firstCallMs} ms 3 s after new Warden(); second call ${callRightAway.secondCallMs} ms`
    )
    console.error(
      `install: ${installed.withoutEffectMB} MB without effect (target <= 15), forbidden: [${installed.forbidden.join(", ")}], import ${installed.importMs} ms (target <= 250), ${installed.importRatio.overEffect}x import("effect"), ${installed.importRatio.overUndici}x import("undici")`
    )
  }
  console.log(JSON.stringify(result))
}

await main()
