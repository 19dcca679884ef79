/**
 * Runs the benchmarks one after the other (`pnpm bench`), or the ones named (`pnpm bench daemon-throughput`).
 * Each runs as its own Node process (TypeScript from source; the daemon benchmarks start the built
 * daemon, which `pnpm bench` builds first). Arguments after `--` go to every benchmark run.
 *
 *   pnpm bench [NAME...] [-- --flag value]
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"

const ALL = [
  "rss-parse",
  "rss-backlog",
  "sqlite-items",
  "decision-search",
  "moderation-state",
  "sandbox-throughput",
  "client-throughput",
  "client-promise",
  "daemon-start",
  "daemon-throughput",
  "daemon-quota",
  "daemon-quota-storm",
  "daemon-quota-backlog",
  "daemon-memory",
  "daemon-soak",
  "daemon-idle",
  "daemon-push"
]

const argv = process.argv.slice(2).filter((a) => a !== "--")
const dash = process.argv.indexOf("--", 2)
const names = (dash === -1 ? argv : process.argv.slice(2, dash)).filter((a) => !a.startsWith("-"))
const passThrough = dash === -1 ? argv.filter((a) => a.startsWith("-")) : process.argv.slice(dash + 1)
const unknown = names.filter((n) => !ALL.includes(n.replace(/\.ts$/, "")))
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; known: ${ALL.join(", ")}`)
  process.exit(2)
}
const selected = names.length === 0 ? ALL : names.map((n) => n.replace(/\.ts$/, ""))

const failed: Array<string> = []
for (const name of selected) {
  const file = new URL(`./${name}.ts`, import.meta.url).pathname
  if (!existsSync(file)) {
    console.error(`== ${name}: ${file} is missing, skipped`)
    failed.push(name)
    continue
  }
  console.error(`== ${name}`)
  const started = Date.now()
  const result = spawnSync(process.execPath, ["--conditions=@warden/source", file, ...passThrough], {
    stdio: "inherit"
  })
  const seconds = ((Date.now() - started) / 1000).toFixed(0)
  if (result.status !== 0) failed.push(name)
  console.error(
    `== ${name}: ${result.status === 0 ? "done" : `failed (${result.status ?? result.signal})`} in ${seconds} s`
  )
}
if (failed.length > 0) {
  console.error(`failed: ${failed.join(", ")}`)
  process.exit(1)
}
