/** The operator docs agree with the code they describe. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiConfig, RetryPolicy } from "@warden/transport"
import { Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../src/config/index.ts"
import * as ConfigReference from "../src/docs/ConfigReference.ts"

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

describe("docs/configuration.md", () => {
  it("its key tables are what the config schema generates (else run: pnpm --filter @warden/daemon docs:config)", () => {
    const { current, generated } = ConfigReference.check()
    expect(current).toBe(generated)
  })

  it("every key of the schema has a row with a meaning", () => {
    const rows = read("docs/configuration.md")
      .split("\n")
      .filter((l) => /^\| `/.test(l))
    const empty = rows.filter((l) => /\|\s*\|\s*$/.test(l))
    expect(empty).toEqual([])
  })

  it("states the transport's defaults: one set for the daemon and the CLI", () => {
    const doc = read("docs/configuration.md")
    const row = (key: string) => doc.split("\n").find((l) => l.startsWith(`| \`${key}\` |`)) ?? ""
    expect(row("timeout")).toContain(`| \`${ApiConfig.DEFAULT_TIMEOUT}\` |`)
    for (const [key, value] of Object.entries(RetryPolicy.defaults)) {
      expect(row(`retry.${key}`)).toContain(`| \`${value}\` |`)
    }
  })

  it("every environment variable it lists fills the key it is listed for", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-docs-"))
    const file = join(dir, "warden.yaml")
    writeFileSync(file, "sources: []\n")
    const values: Record<string, string> = {
      WARDEN_API_KEY: "from-env",
      WARDEN_KEY_KIND: "reseller",
      WARDEN_REGION: "us-east",
      WARDEN_BASE_URL: "http://127.0.0.1:1",
      WARDEN_BASE_URL_US_EAST: "http://127.0.0.1:2",
      WARDEN_BASE_URL_US_WEST: "http://127.0.0.1:3",
      WARDEN_LEGACY_BASE_URL: "http://127.0.0.1:4",
      WARDEN_LEGACY_API_KEY: "legacy-from-env",
      WARDEN_TIMEOUT: "3 seconds",
      WARDEN_RETRY_MAX_ATTEMPTS: "7",
      WARDEN_RETRY_BASE_DELAY: "11 millis",
      WARDEN_RETRY_MAX_DELAY: "2 seconds",
      WARDEN_RETRY_MAX_ELAPSED: "20 seconds",
      WARDEN_FAILOVER: "us-west",
      WARDEN_RATE_LIMIT_RPS: "3",
      WARDEN_RATE_LIMIT_BURST: "4"
    }
    const base = { WARDEN_API_KEY: "base-key" }
    const at = (config: unknown, path: string) => {
      let value = path.split(".").reduce<any>((o, k) => o?.[k], config)
      if (Redacted.isRedacted(value)) value = Redacted.value(value)
      return JSON.stringify(value)
    }
    const baseline = await Effect.runPromise(loadConfig(file, { env: base }))
    for (const [path, variables] of ConfigReference.ENV_FALLBACKS) {
      const env: Record<string, string> = { ...base }
      for (const variable of variables.split(", ")) env[variable] = values[variable]!
      if (env.WARDEN_REGION !== undefined || env.WARDEN_FAILOVER !== undefined) {
        Object.assign(env, {
          WARDEN_BASE_URL_US_EAST: values.WARDEN_BASE_URL_US_EAST,
          WARDEN_BASE_URL_US_WEST: values.WARDEN_BASE_URL_US_WEST
        })
      }
      const config = await Effect.runPromise(loadConfig(file, { env }))
      expect(at(config, path), `${variables} -> ${path}`).not.toBe(at(baseline, path))
    }
  })
})
