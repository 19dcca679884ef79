import { readFileSync } from "node:fs"
import { Ajv2020 } from "ajv/dist/2020.js"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { configFiles } from "./support/ConfigFiles.ts"
import * as WardenCli from "./support/WardenCli.ts"

const fixtures = new URL("./fixtures/config/", import.meta.url).pathname
const env = { WARDEN_TEST_API_KEY: "sk-cli-secret-987", WARDEN_TEST_ADMIN_TOKEN: "tok-cli-secret-654" }

const warden = (args: ReadonlyArray<string>) => WardenCli.warden(args, { env })

describe("warden config check", () => {
  it("prints a summary and exits 0 for the valid example, without showing secrets", async () => {
    const r = await warden(["config", "check", `${fixtures}valid.yaml`])
    // The example sets every section, cluster too, on SQLite state: its one warning says that does nothing.
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^warning: .*valid\.yaml:\d+:\d+: cluster: has no effect: the state is SQLite/)
    ])
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
      retry: { window: "12h" }
    })
  })

  it("config print shows URLs without userinfo or query values, webhooks without their path, and postgres without its credentials", async () => {
    const { write } = configFiles("warden-print-url-")
    const file = write(
      [
        "api:",
        "  apiKey: sk-inline-key",
        "  baseUrl: https://api.example.com",
        "state:",
        "  postgres: postgres://warden:pg-pass-1@db.example.com:5432/warden?sslmode=require",
        "sources:",
        "  - id: feed",
        "    type: rss",
        "    channelId: 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
        "    config: { feeds: ['https://example.com/feed.xml?key=feed-key-3'] }",
        "sinks:",
        "  - type: webhook",
        "    url: https://hook:hook-pass-2@hooks.example.com:8443/warden/in?token=hook-token-4&v=2#frag-5",
        "  - type: webhook",
        "    name: slack",
        "    url: https://hooks.slack.com/services/T0001/B0002/slack-path-token-6",
        ""
      ].join("\n")
    )
    const printed = await warden(["config", "print", file])
    expect(printed.code).toBe(0)
    const shown = parse(printed.stdout) as Record<string, any>
    expect(shown.sinks[0].url).toBe(
      "https://<redacted>@hooks.example.com:8443/<redacted>?token=<redacted>&v=<redacted>#<redacted>"
    )
    // A webhook's path is where Slack, Discord or Teams put the token.
    expect(shown.sinks[1].url).toBe("https://hooks.slack.com/<redacted>")
    expect(shown.sources[0].config.feeds[0]).toBe("https://example.com/feed.xml?key=<redacted>")
    expect(shown.api.baseUrl).toBe("https://api.example.com")
    expect(shown.state.postgres).toBe("<redacted>")
    const checked = await warden(["config", "check", file])
    expect(checked.stdout).toContain(
      "state: postgres postgres://<redacted>@db.example.com:5432/warden?sslmode=<redacted>"
    )
    for (const secret of [
      "pg-pass-1",
      "hook-pass-2",
      "feed-key-3",
      "hook-token-4",
      "frag-5",
      "slack-path-token-6",
      "sk-inline-key"
    ]) {
      expect(printed.stdout + printed.stderr + checked.stdout + checked.stderr).not.toContain(secret)
    }
  })

  it("checks actions of a local plugin (module:) against its capabilities", async () => {
    const r = await warden(["config", "check", `${fixtures}plugin.yaml`])
    expect(r.code).toBe(78)
    expect(r.stderr).toContain("sources.0.rules.1.actions.0: connector hider cannot 'reply'; it can: hide, delete")
    expect(r.stderr).not.toContain("rules.0")
  })

  it("refuses a plugin that declares actions but gives its source no act (config check and run, exit 78)", async () => {
    const a = `${fixtures}actless.yaml`
    const expected = `${a}:6:13: sources.0.module: the module ./plugins/actless.mjs (connector actless) of source 'chat' declares actions [hide] but its source has no act: every such action would fail (a bug in the plugin; the conformance kit's \`actions\` check fails it)`
    const checked = await warden(["config", "check", a])
    expect(checked.code).toBe(78)
    expect(checked.stderr.trim().split("\n")).toEqual([expected, `${a}: 1 problem`])
    const run = await warden(["run", "--config", a])
    expect(run.code).toBe(78)
    expect(run.stderr).toContain(expected)
  })

  it("passes a plugin that declares actions and gives its source act", async () => {
    const r = await warden(["config", "check", `${fixtures}plugin-secrets.yaml`])
    expect(r.code).toBe(0)
    expect(r.stderr).not.toMatch(/has no act|not checked/)
  })

  it("finds sinks like connectors: a package by type, a module path; decodes their keys with their schema, warns of inline secrets and never shows one", async () => {
    const f = `${fixtures}sink-plugins.yaml`
    const r = await warden(["config", "check", f])
    expect(r.code).toBe(78)
    expect(r.stderr.trim().split("\n")).toEqual([
      `${f}:9:14: sinks.0.subject: a subject such as warden.verdicts or warden.{source} (no wildcards)`,
      `${f}:13:13: sinks.1.apiKey: expected a value with a length of at least 8`,
      `${f}:14:11: sinks.2.type: unknown sink type 'kafka' (built in: stdout, jsonl, webhook, sql; type 'kafka' would be the npm package @warden/sink-kafka; a third-party sink is loaded with \`module: ./path.js\`)`,
      `warning: ${f}:4:10: sources: no sources: \`warden run\` needs at least one`,
      `warning: ${f}:10:12: sinks.0.token: secret written inline; prefer \${env:NAME} or \${file:path}`,
      `warning: ${f}:13:13: sinks.1.apiKey: secret written inline; prefer \${env:NAME} or \${file:path}`,
      `${f}: 3 problems, 3 warnings`
    ])
    expect(r.stdout + r.stderr).not.toContain("nats-token-inline")

    const ok = `${fixtures}sink-plugins-ok.yaml`
    const checked = await warden(["config", "check", ok])
    expect(checked.code).toBe(0)
    expect(checked.stdout).toContain("sinks: 2: bus (nats), ledger")
    const printed = await warden(["config", "print", ok])
    expect(printed.code).toBe(0)
    const shown = parse(printed.stdout)
    // The NATS token (Redacted by its schema) and the plugin's plain-string secret (marked in its schema).
    expect(shown.sinks).toEqual([
      {
        type: "nats",
        name: "bus",
        content: false,
        retry: { window: "1d" },
        servers: ["nats://127.0.0.1:4222"],
        subject: "warden.verdicts.{source}",
        token: "<redacted>",
        timeout: "5s"
      },
      {
        type: "ledger",
        module: "./plugins/ledger-sink.mjs",
        name: "ledger",
        content: false,
        retry: { window: "1d" },
        ledger: "main",
        apiKey: "<redacted>"
      }
    ])
    expect(printed.stdout).not.toContain("ledger-key-written-inline")
    // `config schema --config` documents the module sink's own keys, its secret writeOnly.
    const schema = JSON.parse((await warden(["config", "schema", "--config", ok])).stdout)
    const variants = schema.properties.sinks.items.anyOf as Array<{ properties: Record<string, any> }>
    expect(variants.map((v) => v.properties.type?.enum?.[0] ?? v.properties.module?.enum?.[0] ?? "module")).toEqual([
      "stdout",
      "jsonl",
      "webhook",
      "sql",
      "nats",
      "./plugins/ledger-sink.mjs",
      "module"
    ])
    expect(variants[5]!.properties.apiKey).toMatchObject({ type: "string", writeOnly: true })
    expect(variants[4]!.properties.token).toMatchObject({ writeOnly: true })
    expect(printed.stdout).not.toContain(env.WARDEN_TEST_ADMIN_TOKEN)
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
