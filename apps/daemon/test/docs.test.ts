/** The operator docs agree with the code they describe. */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const root = new URL("../../../", import.meta.url).pathname
const read = (path: string) => readFileSync(join(root, path), "utf8")

const sourcesUnder = (dir: string): Array<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourcesUnder(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  )

describe("docs/operations.md", () => {
  it("lists every table the daemon creates (warden_verdicts of the sql sink included)", () => {
    const created = new Set<string>()
    for (const file of sourcesUnder("apps/daemon/src")) {
      for (const m of read(file).matchAll(/CREATE TABLE IF NOT EXISTS (warden_\w+)/g)) created.add(m[1]!)
    }
    expect(created).toContain("warden_verdicts")
    const operations = read("docs/operations.md")
    const missing = [...created].filter((table) => !operations.includes(`\`${table}\``))
    expect(missing).toEqual([])
  })
})
