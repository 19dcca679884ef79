// Adds the vitest JSON reports of every package into one closing line, so CI (and a person) reads
// one total instead of scrolling through turbo's interleaved output. Turbo restores each report
// from its cache on a hit, so the total is complete on a cached run too.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

interface Report {
  readonly numPassedTests: number
  readonly numFailedTests: number
  readonly numPendingTests: number
  readonly numTodoTests: number
}

const root = join(import.meta.dirname, "..", "..")
let passed = 0
let failed = 0
let skipped = 0
const missing: Array<string> = []
for (const group of ["packages", "apps", "tooling"]) {
  const dir = join(root, group)
  if (!existsSync(dir)) continue
  for (const name of readdirSync(dir)) {
    const pkg = join(dir, name)
    if (!existsSync(join(pkg, "vitest.config.ts"))) continue
    const file = join(pkg, ".vitest-report.json")
    if (!existsSync(file)) {
      missing.push(`${group}/${name}`)
      continue
    }
    const report = JSON.parse(readFileSync(file, "utf8")) as Report
    passed += report.numPassedTests
    failed += report.numFailedTests
    skipped += report.numPendingTests + report.numTodoTests
  }
}
if (missing.length > 0) {
  console.error(`no test report from: ${missing.join(", ")}`)
  failed += missing.length
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
process.exit(failed > 0 ? 1 : 0)
