import { readFileSync } from "node:fs"
import { Ajv2020 } from "ajv/dist/2020.js"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import * as WardenCli from "./support/WardenCli.ts"

const fixtures = new URL("./fixtures/config/", import.meta.url).pathname
const env = { WARDEN_TEST_API_KEY: "sk-cli-secret-987", WARDEN_TEST_ADMIN_TOKEN: "tok-cli-secret-654" }

const warden = (args: ReadonlyArray<string>) => WardenCli.warden(args, { env })

describe("warden config check", () => {
  it("prints a summary and exits 0 for the valid example, without showing secrets", async () => {
    const r = await warden(["config", "check", `${fixtures}valid.yaml`])
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("OK")
    expect(r.stdout).toContain("sources: 1: my-feed (rss)")
    expect(r.stdout).toContain("sinks: 3: stdout, audit (jsonl), webhook")
    expect(r.stdout).toMatch(/state: sqlite .*\.warden\/state\.db/)
    for (const secret of [env.WARDEN_TEST_API_KEY, env.WARDEN_TEST_ADMIN_TOKEN, "whsec-test-value"]) {
      expect(r.stdout + r.stderr).not.toContain(secret)
    }
  })

  it("prints every problem as FILE:LINE:COL: path: message on stderr and exits 78", async () => {
    const b = `${fixtures}broken.yaml`
    const r = await warden(["config", "check", b])
    expect(r.code).toBe(78)
    expect(r.stdout).toBe("")
    const lines = r.stderr.trim().split("\n")
    expect(lines).toEqual([
      `${b}:2:11: api.apiKey: environment variable WARDEN_TEST_MISSING_KEY is not set (give a default with \${env:WARDEN_TEST_MISSING_KEY:-default})`,
      `${b}:5:5: sources.0.channelId: required key is missing`,
      `${b}:7:15: sources.0.chanelId: unknown key; did you mean channelId?`,
      `${b}:11:19: sources.0.rules.0.actions.0: connector rss cannot 'hide'; it can: (none)`,
      `${b}:13:3: state: set exactly one of sqlite, postgres`,
      `warning: ${b}:14:13: state.postgres: secret written inline; prefer \${env:NAME} or \${file:path}`,
      `${b}: 5 problems, 1 warning`
    ])
  })

  it("config check reports every problem at once: connector config, action capabilities, bounds, with the warnings", async () => {
    const m = `${fixtures}many-problems.yaml`
    const r = await warden(["config", "check", m])
    expect(r.code).toBe(78)
    expect(r.stderr.trim().split("\n")).toEqual([
      `${m}:6:23: api.retry.baseDelay: must not exceed maxDelay (30s > 10s)`,
      `${m}:11:15: sources.0.chanelId: unknown key; did you mean channelId?`,
      `${m}:14:20: sources.0.config.polInterval: unknown key; did you mean pollInterval?`,
      `${m}:15:40: sources.0.failureMode.after: must not be negative`,
      `${m}:17:15: sources.0.rules.0.name: must be letters, digits, '-', '_' or '.'`,
      `${m}:18:34: sources.0.rules.0.when.severityAtLeast: 'HIGHEST' is not a severity the rules know (known: NONE, LOW, MEDIUM, HIGH, VERY_HIGH)`,
      `${m}:19:19: sources.0.rules.0.actions.0: connector rss cannot 'hide'; it can: (none)`,
      `warning: ${m}:4:11: api.apiKey: secret written inline; prefer \${env:NAME} or \${file:path}`,
      `${m}: 7 problems, 1 warning`
    ])
  })

  it("config print shows the effective config: defaults filled, durations short, secrets redacted", async () => {
    const r = await warden(["config", "print", `${fixtures}valid.yaml`])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain(env.WARDEN_TEST_API_KEY)
    expect(r.stdout).not.toContain(env.WARDEN_TEST_ADMIN_TOKEN)
    const printed = parse(r.stdout) as Record<string, any>
    expect(printed.api.apiKey).toBe("<redacted>")
    expect(printed.admin).toEqual({ listen: "127.0.0.1:8787", token: "<redacted>", public: [] })
    expect(printed.api.timeout).toBe("10s")
    expect(printed.state.sqlite).toBe(`${fixtures}.warden/state.db`)
    expect(printed.state.dir).toBe(`${fixtures}.warden`)
    expect(printed.sources[0].config.maxItemsPerPoll).toBe(100)
    expect(printed.sinks.find((s: { type: string }) => s.type === "webhook")).toMatchObject({
      secret: "<redacted>",
      maxAttempts: 8
    })
  })

  it("checks actions of a local plugin (module:) against its capabilities", async () => {
    const r = await warden(["config", "check", `${fixtures}plugin.yaml`])
    expect(r.code).toBe(78)
    expect(r.stderr).toContain("sources.0.rules.1.actions.0: connector hider cannot 'reply'; it can: hide, delete")
    expect(r.stderr).not.toContain("rules.0")
  })

  it("exits 78 for a file that does not exist", async () => {
    const r = await warden(["config", "check", `${fixtures}nope.yaml`])
    expect(r.code).toBe(78)
    expect(r.stderr).toContain("cannot read")
  })
})

describe("warden config schema", () => {
  it("prints a draft 2020-12 JSON Schema that compiles, includes rss, and validates the example", async () => {
    const r = await warden(["config", "schema"])
    expect(r.code).toBe(0)
    const schema = JSON.parse(r.stdout)
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema")
    expect(schema.$defs["connector-rss"]).toBeDefined()
    const ajv = new Ajv2020({ allErrors: true, validateFormats: false })
    const validate = ajv.compile(schema)

    const valid = parse(readFileSync(`${fixtures}valid.yaml`, "utf8"))
    expect(validate(valid), JSON.stringify(validate.errors)).toBe(true)
    expect(validate(parse(readFileSync(`${fixtures}plugin.yaml`, "utf8"))), JSON.stringify(validate.errors)).toBe(true)

    const typo = structuredClone(valid)
    typo.sources[0].chanelId = typo.sources[0].channelId
    expect(validate(typo)).toBe(false)

    const rss = structuredClone(valid)
    rss.sources[0].config.polInterval = "1 minute"
    expect(validate(rss)).toBe(false)

    const both = structuredClone(valid)
    both.state.postgres = "postgres://db/warden"
    expect(validate(both)).toBe(false)

    const typeAndModule = structuredClone(valid)
    typeAndModule.sources[0].module = "./x.js"
    expect(validate(typeAndModule)).toBe(false)
  })
})
