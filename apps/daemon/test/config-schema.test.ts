import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Ajv2020 } from "ajv/dist/2020.js"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { warden as run } from "./support/WardenCli.ts"

const fixtures = new URL("./fixtures/config/", import.meta.url).pathname
const env = { WARDEN_TEST_API_KEY: "sk-cli-secret-987", WARDEN_TEST_ADMIN_TOKEN: "tok-cli-secret-654" }
const warden = (args: ReadonlyArray<string>) => run(args, { env })

describe("warden config schema --config: plugins' config", () => {
  it("includes a module: plugin's config schema with its descriptions and secret fields, and validates against it", async () => {
    const file = `${fixtures}plugin-secrets.yaml`
    const r = await warden(["config", "schema", "--config", file])
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const schema = JSON.parse(r.stdout)
    const plugin = schema.$defs["module-0-vault"]
    expect(plugin.description).toBe("Config of a source with module: ./plugins/vault.mjs")
    expect(plugin.properties.room).toMatchObject({ type: "string", description: "The room to watch" })
    expect(plugin.properties.token).toMatchObject({
      description: "The vault token",
      writeOnly: true
    })
    expect(plugin.properties.backupToken).toMatchObject({ writeOnly: true })
    expect(schema.$defs["connector-rss"]).toBeDefined()

    const validate = new Ajv2020({ allErrors: true, validateFormats: false }).compile(schema)
    const config = parse(readFileSync(file, "utf8"))
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true)
    const typo = structuredClone(config)
    typo.sources[0].config.rooom = "general"
    expect(validate(typo)).toBe(false)
  })

  it("without --config, a module: plugin's config is an open object", async () => {
    const r = await warden(["config", "schema"])
    expect(r.code).toBe(0)
    expect(Object.keys(JSON.parse(r.stdout).$defs).filter((k) => k.startsWith("module-"))).toEqual([])
  })

  it("exits 78 naming the source when a module: plugin cannot be loaded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-schema-"))
    const file = join(dir, "warden.yaml")
    writeFileSync(file, "sources:\n  - id: a\n    module: ./missing.mjs\n    channelId: x\n")
    const r = await warden(["config", "schema", "--config", file])
    expect(r.code).toBe(78)
    expect(r.stdout).toBe("")
    expect(r.stderr).toMatch(/sources\.0\.module: .*missing\.mjs/u)
  })
})

describe("warden config check: a plugin's secret fields", () => {
  it("warns on the inline value of a plugin field marked secret, not on the referenced one", async () => {
    const r = await warden(["config", "check", `${fixtures}plugin-secrets.yaml`])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(
      /^warning: .*plugin-secrets\.yaml:11:\d+: sources\.0\.config\.backupToken: secret written inline; prefer \$\{env:NAME\} or \$\{file:path\}$/mu
    )
    expect(r.stderr).not.toContain("sources.0.config.token")
    expect(r.stdout + r.stderr).not.toContain("tok-written-inline")
  })
})
