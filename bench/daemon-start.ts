/**
 * Start-up: `warden demo` (built: `node apps/daemon/dist/bin.js demo --format json`) from the process
 * start to the first verdict line on stdout. Baseline in the same run: `node -e 0` (the bare runtime's
 * start). Target: <= 2 s.
 *
 *   pnpm bench daemon-start
 *   node bench/daemon-start.ts [--runs 5] [--no-write]
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { flag, has, machine, median, progress, root, spread, writeDocSection, writeResult } from "./support/common.ts"

const runs = flag("runs", 5)
const bin = join(root, "apps/daemon/dist/bin.js")

/** Seconds from spawn to the first stdout line that is a verdict (a JSON object with a reference). */
const once = (args: Array<string>, untilVerdict: boolean) =>
  new Promise<number>((resolve, reject) => {
    const start = performance.now()
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_NO_WARNINGS: "1" }
    })
    let out = ""
    let err = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`no verdict within 30 s:\n${err.slice(-2000)}`))
    }, 30_000)
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString()
    })
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString()
      if (!untilVerdict) return
      for (const line of out.split("\n").slice(0, -1)) {
        try {
          const parsed = JSON.parse(line) as { reference?: string }
          if (typeof parsed === "object" && parsed !== null && typeof parsed.reference === "string") {
            const seconds = (performance.now() - start) / 1000
            clearTimeout(timer)
            child.kill("SIGTERM")
            child.once("exit", () => resolve(seconds))
            return
          }
        } catch {}
      }
    })
    child.once("exit", (code) => {
      if (untilVerdict) return
      clearTimeout(timer)
      if (code === 0) resolve((performance.now() - start) / 1000)
      else reject(new Error(`exited ${code}`))
    })
  })

const bare: Array<number> = []
const demo: Array<number> = []
for (let i = 1; i <= runs; i++) {
  bare.push(await once(["-e", "0"], false))
  const s = await once([bin, "demo", "--format", "json"], true)
  demo.push(s)
  progress(`run ${i}/${runs}: first verdict after ${s.toFixed(2)} s (bare node start ${bare.at(-1)!.toFixed(2)} s)`)
}
const result = {
  bench: "daemon-start",
  date: new Date().toISOString(),
  machine: machine(),
  runs,
  demoSeconds: demo.map((s) => Number(s.toFixed(3))),
  bareNodeSeconds: bare.map((s) => Number(s.toFixed(3))),
  medianSeconds: Number(median(demo).toFixed(3)),
  target: 2
}
console.log(JSON.stringify(result))
writeResult("daemon-start", result)
if (!has("no-write")) {
  writeDocSection(
    "daemon-start",
    `## Daemon: start to first verdict (\`bench/daemon-start.ts\`)

Command: \`pnpm bench daemon-start\`: \`node apps/daemon/dist/bin.js demo --format json\` (embedded sandbox, demo
feed, fresh SQLite file) from the process start to the first verdict line on stdout, ${runs} runs; the baseline is
\`node -e 0\` in the same runs. Measured ${result.date.slice(0, 10)} on ${result.machine}.

| | seconds, median (min–max) | target |
|---|---:|---:|
| bare \`node -e 0\` | ${spread(bare, 2)} | |
| \`warden demo\` to first verdict | ${spread(demo, 2)} | <= 2 |
| ratio to the bare start | ${(median(demo) / median(bare)).toFixed(0)}x | |`
  )
}
