import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { ConfigField, Connector } from "@warden/connector"
import { Duration, Effect, Redacted, Schema, Stream } from "effect"
import { describe, expect, it } from "vitest"
import {
  type Checked,
  checkConfig,
  ConfigError,
  DaemonConfig,
  formatLocated,
  formatProblem,
  loadConfig,
  toApiConfigInput
} from "../src/config/index.ts"
import { configFiles } from "./support/ConfigFiles.ts"

const fixtures = new URL("./fixtures/config/", import.meta.url).pathname
const { dir, write } = configFiles("warden-config-")
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const env = { WARDEN_TEST_API_KEY: "sk-test-123456", WARDEN_TEST_ADMIN_TOKEN: "admin-token-abcdef" }

/** A connector that can hide and delete, known without importing. */
const mod = Connector.make({
  type: "mod",
  configSchema: Schema.Struct({ room: Schema.String }),
  capabilities: { actions: ["hide", "delete", "holdForReview"], duplicates: "never", contentTypes: ["text", "image"] },
  // Never run; config checks make its source (to see its act) and close it.
  make: () => Effect.succeed({ events: () => Stream.never, act: () => Effect.succeed({ status: "done" as const }) })
})

const check = (path: string, e: Record<string, string> = env) =>
  Effect.runPromise(Effect.result(checkConfig(path, { env: e, builtins: [mod] })))

const problemsOf = async (text: string, e?: Record<string, string>) => {
  const r = await check(write(text), e)
  if (r._tag === "Success") throw new Error("expected problems, the file decoded")
  expect(r.failure).toBeInstanceOf(ConfigError)
  return r.failure.problems.map(formatProblem)
}

const api = `api:\n  apiKey: \${env:WARDEN_TEST_API_KEY}\n  baseUrl: https://api.example.com\n`
const source = (extra = "", type = "rss", config = "{ feeds: [https://example.com/feed.xml] }") =>
  `  - id: feed\n    type: ${type}\n    channelId: ${CHANNEL}\n    config: ${config}\n${extra}`

describe("loadConfig: the valid example", () => {
  it("decodes every section with defaults, Durations and Redacted secrets", async () => {
    const config = await Effect.runPromise(loadConfig(join(fixtures, "valid.yaml"), { env }))
    expect(Redacted.value(config.api.apiKey)).toBe(env.WARDEN_TEST_API_KEY)
    expect(String(config.api.apiKey)).not.toContain(env.WARDEN_TEST_API_KEY)
    expect(Duration.toMillis(config.api.timeout)).toBe(10_000)
    expect(Duration.toMillis(config.api.retry.baseDelay)).toBe(200)
    expect(config.api.regions).toMatchObject({ policy: "failover", failover: ["us-east"] })
    expect(config.state).toEqual({ _tag: "Sqlite", filename: join(fixtures, ".warden/state.db") })
    expect(config.sources).toHaveLength(1)
    const feed = config.sources[0]!
    expect(feed).toMatchObject({ id: "my-feed", type: "rss", mode: "v1", analyse: ["text"], oversize: "split" })
    expect(Duration.toMinutes((feed.config as { pollInterval: Duration.Duration }).pollInterval)).toBe(5)
    expect(feed.rules[0]).toMatchObject({ name: "audit-threats", actions: [], sinks: ["audit"] })
    expect(config.sinks.map((s) => s.name)).toEqual(["stdout", "audit", "webhook"])
    const webhook = config.sinks[2]!
    expect(webhook.type).toBe("webhook")
    const { secret } = webhook.config as { secret: Redacted.Redacted<string> }
    expect(Redacted.value(secret)).toBe("whsec-test-value")
    expect(config.admin.listen).toEqual({ host: "127.0.0.1", port: 8787 })
    expect(Redacted.value(config.admin.token!)).toBe(env.WARDEN_TEST_ADMIN_TOKEN)
    expect(config.cluster.runnerAddress).toEqual({ host: "127.0.0.1", port: 34431 })
    expect(config.log).toEqual({ content: false, format: "auto", level: "info" })
  })

  it("never shows a secret when the config is printed", async () => {
    const config = await Effect.runPromise(loadConfig(join(fixtures, "valid.yaml"), { env }))
    const shown = `${JSON.stringify(config)} ${String(config.api.apiKey)} ${JSON.stringify(toApiConfigInput(config.api))}`
    for (const secret of [...Object.values(env), "whsec-test-value"]) expect(shown).not.toContain(secret)
  })

  it("maps the api section to the transport's ApiConfig.Input", async () => {
    const config = await Effect.runPromise(loadConfig(join(fixtures, "valid.yaml"), { env }))
    const input = toApiConfigInput(config.api)
    expect(input.baseUrls).toMatchObject({ global: "https://api.example.com" })
    expect(input.failover).toEqual(["us-east"])
    expect(input.quotas?.endpoints?.analyzeText).toEqual({ requestsPerSecond: 50, burst: 50 })
  })

  it("applies defaults to a minimal file, and WARDEN_* fill the api section", async () => {
    const path = write(`sources:\n${source()}`)
    const r = await check(path, {
      WARDEN_API_KEY: "k-from-env",
      WARDEN_BASE_URL: "https://env.example.com",
      WARDEN_TIMEOUT: "3 seconds"
    })
    if (r._tag === "Failure") throw new Error(r.failure.message)
    const { config, warnings } = r.success as Checked
    expect(Redacted.value(config.api.apiKey)).toBe("k-from-env")
    expect(config.api.baseUrl).toBe("https://env.example.com")
    expect(Duration.toMillis(config.api.timeout)).toBe(3000)
    expect(config.api.retry.maxAttempts).toBe(5)
    expect(config.sinks).toEqual([
      {
        type: "stdout",
        module: undefined,
        name: "stdout",
        content: false,
        retry: { window: Duration.hours(24) },
        config: { format: "auto" }
      }
    ])
    expect(config.state).toEqual({ _tag: "Sqlite", filename: join(dir, ".warden/state.db") })
    expect(config.admin.listen).toEqual({ host: "127.0.0.1", port: 8787 })
    expect(config.dryRun).toBe(false)
    expect(config.sources[0]).toMatchObject({ mode: "v1", analyse: ["text"], autoFeedback: false, dryRun: false })
    expect(warnings).toEqual([])
  })

  it("resolves postgres from a secret file, and warns on inline secrets", async () => {
    writeFileSync(join(dir, "db.url"), "postgres://u:pw-secret@db:5432/warden\n")
    const path = write(
      `api:\n  apiKey: inline-key\n  baseUrl: https://api.example.com\nstate:\n  postgres: \${file:db.url}\nsources:\n${source()}`
    )
    const r = await check(path)
    if (r._tag === "Failure") throw new Error(r.failure.message)
    const { config, warnings } = r.success as Checked
    expect(config.state._tag).toBe("Postgres")
    expect(config.state._tag === "Postgres" && Redacted.value(config.state.url)).toBe(
      "postgres://u:pw-secret@db:5432/warden"
    )
    // The inline API key; the postgres URL, from a file, is not warned about. (cluster.runnerAddress:
    // PostgreSQL with no runner address, reachable from this machine only; see the cluster cases.)
    expect(warnings.map((w) => w.path)).toEqual(["api.apiKey", "cluster.runnerAddress"])
  })

  it("accepts rule actions the connector declares, sink-only rules, and failureMode reject", async () => {
    const path = write(
      `${api}sources:\n${source(
        `    rules:\n      - name: remove\n        when: { severityAtLeast: HIGH }\n        actions: [hide, { kind: delete, reason: policy }]\n      - name: audit-only\n        sinks: [stdout]\n    failureMode: { mode: reject, action: holdForReview }\n`,
        "mod",
        "{ room: general }"
      )}`
    )
    const r = await check(path)
    if (r._tag === "Failure") throw new Error(r.failure.message)
    expect(r.success.config.sources[0]!.rules[0]!.actions).toEqual([
      { kind: "hide" },
      { kind: "delete", reason: "policy" }
    ])
    expect(r.success.connectors.get("feed")?.type).toBe("mod")
  })
})

describe("loadConfig: warnings", () => {
  it("warns when there is no source", async () => {
    const r = await check(write(api))
    if (r._tag === "Failure") throw new Error(r.failure.message)
    expect(r.success.warnings).toEqual([{ path: "sources", message: "no sources: `warden run` needs at least one" }])
  })

  it("warns on each secret of the file itself written inline (fields marked secret in its schema), not on references", async () => {
    const r = await check(
      write(
        "api:\n  apiKey: sk-inline-123456\n  baseUrl: https://api.example.com\n  legacyApiKey: legacy-inline\n" +
          "  legacyBaseUrl: https://legacy.example.com\n" +
          "admin:\n  token: admin-inline-token\n" +
          "moderators:\n  - name: ana\n    role: moderator\n    token: ana-token-0123456789\n" +
          `  - name: ben\n    role: moderator\n    token: \${env:WARDEN_TEST_ADMIN_TOKEN}\n` +
          `sources:\n${source()}`
      )
    )
    if (r._tag === "Failure") throw new Error(r.failure.message)
    expect(r.success.warnings.map((w) => `${w.path}: ${w.message}`)).toEqual(
      ["api.apiKey", "api.legacyApiKey", "admin.token", "moderators.0.token"].map(
        (path) => `${path}: secret written inline; prefer \${env:NAME} or \${file:path}`
      )
    )
  })

  it("sink settings whose meaning changed: log.content without a content sink, a webhook's maxAttempts", async () => {
    const sinkWarnings = async (text: string) => {
      const r = await check(write(`${api}sources:\n${source()}${text}`))
      if (r._tag === "Failure") throw new Error(r.failure.message)
      return r.success.warnings.map((w) => `${w.path}: ${w.message}`)
    }
    expect(
      await sinkWarnings(
        "log:\n  content: true\nsinks:\n  - type: webhook\n    url: https://hooks.example.com/in\n    maxAttempts: 8\n"
      )
    ).toEqual([
      "log.content: governs the logs only: no sink's records carry the content text unless its entry says content: true",
      "sinks.0.maxAttempts: ignored: a failed delivery is retried for the sink's retry.window (default 24 hours)"
    ])
    // The text asked for where it is now set: no warning.
    expect(
      await sinkWarnings("log:\n  content: true\nsinks:\n  - type: jsonl\n    path: v.jsonl\n    content: true\n")
    ).toEqual([])
  })

  describe("cluster settings that cannot work as written", () => {
    const postgres = "state:\n  postgres: postgres://warden@db.internal/warden\n"
    const clusterWarnings = async (text: string) => {
      const r = await check(write(`${api}${text}sources:\n${source()}`))
      if (r._tag === "Failure") throw new Error(r.failure.message)
      return r.success.warnings.filter((w) => w.path.startsWith("cluster")).map((w) => `${w.path}: ${w.message}`)
    }

    it("cluster settings on SQLite: one daemon alone, so they do nothing", async () => {
      expect(await clusterWarnings("cluster:\n  runnerAddress: 10.0.0.5:34431\n")).toEqual([
        expect.stringMatching(
          /^cluster: has no effect: the state is SQLite, .*set state\.postgres to run several daemons/
        )
      ])
      expect(await clusterWarnings("")).toEqual([])
    })

    it("PostgreSQL with no runnerAddress or a loopback one: only runners on this machine can reach it", async () => {
      expect(await clusterWarnings(postgres)).toEqual([
        expect.stringMatching(
          /^cluster\.runnerAddress: not set: this runner listens on 127\.0\.0\.1:34431, a loopback address: only runners on this machine/
        )
      ])
      expect(await clusterWarnings(`${postgres}cluster:\n  runnerAddress: localhost:9000\n`)).toEqual([
        expect.stringMatching(/^cluster\.runnerAddress: localhost:9000, a loopback address/)
      ])
      expect(
        await clusterWarnings(`${postgres}cluster:\n  runnerAddress: 0.0.0.0:9000\n  advertise: "[::1]:9000"\n`)
      ).toEqual([expect.stringMatching(/^cluster\.advertise: \[::1\]:9000, a loopback address/)])
    })

    it("a wildcard address with nothing advertised: the others would connect to themselves", async () => {
      expect(await clusterWarnings(`${postgres}cluster:\n  runnerAddress: 0.0.0.0:34431\n`)).toEqual([
        expect.stringMatching(
          /^cluster\.runnerAddress: 0\.0\.0\.0:34431 is where to listen, not an address to reach: .*set cluster\.advertise/
        )
      ])
    })

    it("a reachable address: no warning", async () => {
      expect(await clusterWarnings(`${postgres}cluster:\n  runnerAddress: 10.0.0.5:34431\n`)).toEqual([])
      expect(
        await clusterWarnings(`${postgres}cluster:\n  runnerAddress: 0.0.0.0:34431\n  advertise: warden-2:34431\n`)
      ).toEqual([])
    })
  })
})

describe("loadConfig: broken files", () => {
  const cases: ReadonlyArray<readonly [name: string, text: string, expected: string, env?: Record<string, string>]> = [
    ["a wrong type", `${api}dryRun: yes-please\nsources:\n${source()}`, "dryRun: expected boolean"],
    ["an unknown top-level key", `${api}sorces: []\n`, "sorces: unknown key; did you mean sources?"],
    [
      "an unknown source key",
      `${api}sources:\n${source("    chanelId: x\n")}`,
      "sources.0.chanelId: unknown key; did you mean channelId?"
    ],
    [
      "an unknown connector config key",
      `${api}sources:\n${source("", "rss", "{ feeds: [https://e.example/f], polInterval: 1 minutes }")}`,
      "sources.0.config.polInterval: unknown key; did you mean pollInterval?"
    ],
    [
      "a missing connector config key",
      `${api}sources:\n${source("", "rss", "{}")}`,
      "sources.0.config.feeds: required key is missing"
    ],
    [
      "a missing env secret",
      `api:\n  apiKey: \${env:WARDEN_KEY}\n  baseUrl: https://api.example.com\n`,
      "api.apiKey: environment variable WARDEN_KEY is not set"
    ],
    [
      "a missing file secret",
      `${api}admin:\n  token: \${file:nope.txt}\n`,
      "admin.token: cannot read secret file nope.txt"
    ],
    ["no api key at all", "sources: []\n", "api.apiKey: required: set api.apiKey", {}],
    [
      "a bad uuid",
      `${api}sources:\n  - id: feed\n    type: rss\n    channelId: not-a-uuid\n    config: { feeds: [https://e.example/f] }\n`,
      "sources.0.channelId: must be a UUID"
    ],
    [
      "an unknown connector type",
      `${api}sources:\n${source("", "nosuch")}`,
      "sources.0.type: unknown connector type 'nosuch' (first-party types: rss, discord, youtube, nats, http; type 'nosuch' would be the npm package @warden/connector-nosuch"
    ],
    [
      "an action the connector cannot do",
      `${api}sources:\n${source("    rules:\n      - name: r\n        actions: [log]\n      - name: r2\n        actions: [hide]\n")}`,
      "sources.0.rules.1.actions.0: connector rss cannot 'hide'; it can: (none)"
    ],
    [
      "duplicate source ids",
      `${api}sources:\n${source()}${source()}`,
      "sources.1.id: duplicate source id 'feed' (also sources.0)"
    ],
    [
      "duplicate sink names",
      `${api}sinks:\n  - type: stdout\n  - type: jsonl\n    name: stdout\n    path: x.jsonl\n`,
      "sinks.1.name: duplicate sink name 'stdout'"
    ],
    [
      "both sqlite and postgres",
      `${api}state:\n  sqlite: a.db\n  postgres: postgres://h/db\n`,
      "state: set exactly one of sqlite, postgres"
    ],
    [
      "both type and module",
      `${api}sources:\n${source("    module: ./x.js\n")}`,
      "sources.0.type: set exactly one of type"
    ],
    [
      "an unknown sink type",
      `${api}sinks:\n  - type: kafka\n`,
      "sinks.0.type: unknown sink type 'kafka' (built in: stdout, jsonl, webhook, sql; type 'kafka' would be the npm package @warden/sink-kafka; a third-party sink is loaded with `module: ./path.js`)"
    ],
    ["a bad duration", `${api}  timeout: 10 parsecs\n`, "api.timeout: expected a duration such as"],
    [
      "a number where a duration goes",
      `${api}cluster:\n  shardLockExpiration: 5\n`,
      "cluster.shardLockExpiration: expected a duration such as"
    ],
    ["a bad listen address", `${api}admin:\n  listen: localhost\n`, "admin.listen: must be HOST:PORT"],
    [
      "a rule naming a missing sink",
      `${api}sources:\n${source("    rules:\n      - name: r\n        sinks: [audit]\n")}`,
      "sources.0.rules.0.sinks.0: no sink named 'audit'; sinks: stdout"
    ],
    [
      "reject without an action",
      `${api}sources:\n${source("    failureMode: { mode: reject }\n")}`,
      "sources.0.failureMode.action: required when mode is reject"
    ],
    [
      "a region without a base URL",
      `api:\n  apiKey: k\n  region: us-west\nsources:\n${source()}`,
      "api.baseUrlUsWest: required: region us-west"
    ],
    ["a bad env default", `${api}sources: []\n`, "api.keyKind: expected", { ...env, WARDEN_KEY_KIND: "premium" }],
    ["a YAML syntax error", "api:\n  apiKey: [1, 2\nsinks: x\n", "YAML syntax error"],
    ["not a mapping", "- just\n- a list\n", "the file must be a YAML mapping"]
  ]
  for (const [name, text, expected, e] of cases) {
    it(name, async () => {
      const problems = await problemsOf(text, e)
      expect(
        problems.some((p) => p.startsWith(expected) || p.includes(`: ${expected}`)),
        `${expected}\nnot in:\n${problems.join("\n")}`
      ).toBe(true)
    })
  }

  it("a severity the rules do not know is a config error naming the path and the known values", async () => {
    const problems = await problemsOf(
      `${api}sources:\n${source("    rules:\n      - name: r\n        when: { severityAtLeast: HIGHEST }\n")}`
    )
    expect(problems).toEqual([
      "sources.0.rules.0.when.severityAtLeast: 'HIGHEST' is not a severity the rules know (known: NONE, LOW, MEDIUM, HIGH, VERY_HIGH)"
    ])
  })

  it("every enum of a rule's when is checked: types, actions, classifications, directedAt", async () => {
    const problems = await problemsOf(
      `${api}sources:\n${source("    rules:\n      - name: r\n        when: { type: [HATEFULL], recommendedAction: [DELETE], directedAt: [EVERYONE], classifications: { anyOf: [THREAT, SPAM_X], allOf: [INSLUT] } }\n")}`
    )
    expect(problems.map((p) => p.split(": ")[0])).toEqual([
      "sources.0.rules.0.when.type.0",
      "sources.0.rules.0.when.recommendedAction.0",
      "sources.0.rules.0.when.directedAt.0",
      "sources.0.rules.0.when.classifications.anyOf.1",
      "sources.0.rules.0.when.classifications.allOf.0"
    ])
    expect(problems[0]).toBe(
      "sources.0.rules.0.when.type.0: 'HATEFULL' is not an analysis type the rules know; did you mean HATEFUL? (known: HATEFUL, SUPPORTIVE, NEUTRAL)"
    )
    expect(problems[1]).toContain("(known: KEEP, REMOVE)")
    expect(problems[4]).toContain("did you mean INSULT?")
  })

  it("a duration no operator can mean is refused with its bound: a negative failure-mode delay, a zero timeout", async () => {
    const problems = await problemsOf(
      `api:\n  apiKey: k\n  baseUrl: https://api.example.com\n  timeout: 0 seconds\nsources:\n${source("    failureMode: { mode: allow, after: -5 minutes }\n")}`
    )
    expect(problems).toContain("api.timeout: must be at least 100ms")
    expect(problems).toContain("sources.0.failureMode.after: must not be negative")
  })

  it("relations between keys are checked: retry.baseDelay <= maxDelay <= maxElapsed", async () => {
    const problems = await problemsOf(`${api}  retry: { baseDelay: 30 seconds, maxDelay: 10 seconds }\n`)
    expect(problems).toContain("api.retry.baseDelay: must not exceed maxDelay (30s > 10s)")
    const elapsed = await problemsOf(`${api}  retry: { maxDelay: 2 minutes }\n`)
    expect(elapsed).toContain("api.retry.maxDelay: must not exceed maxElapsed (2m > 30s)")
  })

  it("a poll interval of 0 is refused by the connector's own bound", async () => {
    const problems = await problemsOf(
      `${api}sources:\n${source("", "rss", "{ feeds: [https://e.example/f], pollInterval: 0 seconds, retry: { initial: 1 hour, max: 1 minute } }")}`
    )
    expect(problems).toContain("sources.0.config.pollInterval: must be at least 50ms")
    expect(problems).toContain("sources.0.config.retry.initial: must not exceed max (1h > 1m)")
  })

  it("a poll interval under a second is accepted with a warning (local test feeds)", async () => {
    const r = await check(
      write(`${api}sources:\n${source("", "rss", "{ feeds: [https://e.example/f], pollInterval: 200 millis }")}`)
    )
    if (r._tag === "Failure") throw new Error(r.failure.message)
    expect(r.success.warnings.map(formatProblem)).toEqual([
      "sources.0.config.pollInterval: polls every 200ms: under a second, fit for a local test feed, not for a remote one"
    ])
  })

  it("numbers have sane bounds too: a quota of 0 requests per second, a cluster lock refreshed after it expires", async () => {
    const problems = await problemsOf(
      `${api}  quotas: { default: { requestsPerSecond: 0 } }\ncluster:\n  shardLockExpiration: 5 seconds\n  shardLockRefreshInterval: 10 seconds\n`
    )
    expect(problems.some((p) => p.startsWith("api.quotas.default.requestsPerSecond:"))).toBe(true)
    expect(problems.some((p) => p.startsWith("cluster.shardLockRefreshInterval: must be shorter"))).toBe(true)
  })

  it("reports every problem at once, in file order", async () => {
    const problems = await problemsOf(
      `api:\n  apiKey: \${env:NOPE}\n  retyr: {}\nsources:\n${source("    chanelId: x\n", "nosuch")}sinks:\n  - type: kafka\n`
    )
    expect(problems.map((p) => p.split(":")[0])).toEqual([
      "api.apiKey",
      "api.retyr",
      "sources.0.type",
      "sources.0.chanelId",
      "sinks.0.type"
    ])
  })

  it("gives a YAML syntax error the file's name, line and column", async () => {
    const file = write("api:\n  apiKey: k\n  baseUrl: [a, b\nsinks: []\n")
    const r = await check(file)
    if (r._tag === "Success") throw new Error("expected a syntax error")
    expect(r.failure.problems.map((p) => formatLocated(p))[0]).toMatch(
      new RegExp(`^${file.replace(/[.*+?^$()|[\]\\]/gu, "\\$&")}:\\d+:\\d+: YAML syntax error`, "u")
    )
  })
})

describe("DaemonConfig", () => {
  it("provides the loaded config as a service", async () => {
    const config = await Effect.runPromise(
      Effect.provide(Effect.service(DaemonConfig), DaemonConfig.layer(join(fixtures, "valid.yaml"), { env }))
    )
    expect(config.sources[0]?.id).toBe("my-feed")
  })
})

describe("checkConfig: a connector's secret fields", () => {
  /** A connector whose `token` and each `accounts[].key` are marked `ConfigField.secret`. */
  const vault = Connector.make({
    type: "vault",
    configSchema: Schema.Struct({
      token: ConfigField.secret(Schema.RedactedFromValue(Schema.String)),
      accounts: Schema.optionalKey(
        Schema.Array(Schema.Struct({ name: Schema.String, key: ConfigField.secret(Schema.String) }))
      ),
      room: Schema.optionalKey(Schema.String)
    }),
    capabilities: { actions: [], duplicates: "never", contentTypes: ["text"] },
    make: () => Effect.die("not in tests")
  })
  const warningsOf = async (config: string) => {
    const path = write(`${api}sources:\n${source("", "vault", config)}`)
    const r = await Effect.runPromise(
      Effect.result(checkConfig(path, { env: { ...env, VAULT_TOKEN: "t-123" }, builtins: [vault] }))
    )
    if (r._tag === "Failure") throw new Error(r.failure.message)
    return r.success.warnings.map((w) => formatLocated(w, "warning"))
  }

  it("warns on each inline value of a field marked secret, naming its path and line", async () => {
    const warnings = await warningsOf("{ token: t-inline, room: lobby, accounts: [{ name: a, key: k-inline }] }")
    expect(warnings).toEqual([
      expect.stringMatching(
        /^warning: .*:\d+:\d+: sources\.0\.config\.token: secret written inline; prefer \$\{env:NAME\}/u
      ),
      expect.stringMatching(/^warning: .*:\d+:\d+: sources\.0\.config\.accounts\.0\.key: secret written inline/u)
    ])
  })

  it("does not warn when the secret fields are references or the field is not marked secret", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax in a config file
    expect(await warningsOf("{ token: '${env:VAULT_TOKEN}', room: lobby }")).toEqual([])
  })
})
