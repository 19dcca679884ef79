/** docs/grafana-dashboard.json only queries series the daemon exports, and is importable JSON. */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const root = new URL("../../../", import.meta.url).pathname
const dashboard = JSON.parse(readFileSync(join(root, "docs/grafana-dashboard.json"), "utf8"))

/** Every metric name declared with effect's `Metric.counter/gauge/histogram("name")` in the sources that run in the daemon. */
const declared = (): Set<string> => {
  const names = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts"))
        for (const m of readFileSync(path, "utf8").matchAll(
          /Metric\.(?:counter|gauge|histogram|summary)\("([a-z0-9_]+)"/gu
        ))
          names.add(m[1]!)
    }
  }
  for (const dir of ["apps/daemon/src", "packages/transport/src", "packages/connector-youtube/src"])
    walk(join(root, dir))
  return names
}

describe("the Grafana dashboard", () => {
  it("queries only metrics the daemon declares (histograms by their _bucket series)", () => {
    const known = declared()
    const exprs: Array<string> = dashboard.panels.flatMap((p: { targets: Array<{ expr: string }> }) =>
      p.targets.map((t) => t.expr)
    )
    expect(exprs.length).toBeGreaterThan(10)
    const used = new Set(
      // with or without a label selector: `rate(warden_x[5m])` names a series as much as `warden_x{...}`
      exprs.flatMap((e) => [...e.matchAll(/\b((?:warden|process|nodejs)_[a-z0-9_]+)\b/gu)].map((m) => m[1]!))
    )
    expect(used.size).toBeGreaterThan(10)
    for (const name of used) expect(known, name).toContain(name.replace(/_bucket$/u, ""))
  })

  it("has a datasource variable and unique panel ids, as Grafana's import needs", () => {
    expect(dashboard.templating.list.map((v: { name: string }) => v.name)).toContain("datasource")
    const ids = dashboard.panels.map((p: { id: number }) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
