/**
 * The compose example of docs/operations.md ("Several daemons"): PostgreSQL and three daemons sharing
 * one config file. Docker is not run here; what is checked is what makes the example work as copied:
 * three daemon services, each with its own host name and published admin port, all mounting the one
 * config, and that config (the section's YAML block) accepted by `warden config check` in each
 * service's environment, every `${env:...}` it names set by the service, advertising a distinct
 * address per runner.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { warden } from "./support/WardenCli.ts"

const operations = readFileSync(new URL("../../../docs/operations.md", import.meta.url), "utf8")
const section = operations.slice(operations.indexOf("## Several daemons"))
const blocks = [...section.matchAll(/^```yaml\n([\s\S]*?)^```/gmu)].map((m) => m[1]!)
const configYaml = blocks.find((b) => /^cluster:/mu.test(b))!
const composeYaml = blocks.find((b) => /^services:/mu.test(b))!

interface Service {
  readonly hostname?: string
  readonly environment?: Record<string, string>
  readonly volumes?: ReadonlyArray<string>
  readonly ports?: ReadonlyArray<string>
  readonly depends_on?: Record<string, unknown>
}

/** `${NAME}` of compose interpolation, as the reader's `.env` would set it. */
const interpolate = (value: string) =>
  value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/gu, (_, name: string) =>
    name.endsWith("_URL") ? "https://placeholder.example.com" : `placeholder-${name.toLowerCase()}`
  )

describe("the compose example of 'Several daemons'", () => {
  const compose = parse(composeYaml, { merge: true }) as { services: Record<string, Service> }
  const daemons = Object.entries(compose.services).filter(([name]) => name.startsWith("warden-"))

  it("has PostgreSQL and three daemons, each with its own host name and admin port, mounting one config", () => {
    expect(configYaml).toBeDefined()
    // each runner advertises its own host name: distinct host names, distinct addresses
    expect(configYaml).toMatch(/^ {2}advertise: \$\{env:HOSTNAME\}:\d+/mu)
    expect(compose.services.postgres).toBeDefined()
    expect(daemons.map(([name]) => name)).toEqual(["warden-1", "warden-2", "warden-3"])
    expect(new Set(daemons.map(([, s]) => s.hostname)).size).toBe(3)
    expect(new Set(daemons.map(([, s]) => s.ports?.[0])).size).toBe(3)
    for (const [name, s] of daemons) {
      expect(s.hostname, name).toBe(name)
      expect(s.volumes, name).toContain("./warden.yaml:/etc/warden/warden.yaml:ro")
      expect(Object.keys(s.depends_on ?? {}), name).toContain("postgres")
    }
  })

  it.each(["warden-1", "warden-2", "warden-3"])(
    "%s: the config passes warden config check with the service's environment",
    async (name) => {
      const service = compose.services[name]!
      // Docker sets HOSTNAME from `hostname:`; the rest is the service's `environment:`.
      const env: Record<string, string> = { HOSTNAME: service.hostname! }
      for (const [key, value] of Object.entries(service.environment ?? {})) env[key] = interpolate(String(value))
      for (const [, needed] of configYaml.matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)/gu)) {
        expect(env, `${name} sets ${needed}`).toHaveProperty(needed!)
      }
      // The database URL is a real postgres:// URL once interpolated.
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/postgres:.+@postgres:5432\/warden$/u)
      const dir = mkdtempSync(join(tmpdir(), "warden-compose-"))
      writeFileSync(join(dir, "warden.yaml"), configYaml)
      const r = await warden(["config", "check", "warden.yaml"], { cwd: dir, env })
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("OK")
    }
  )
})
