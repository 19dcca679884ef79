/** The config file as operators write it: short durations, env defaults, typed references, located problems. */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the file is about ${env:...} references, written as operators write them
import { Connector } from "@warden/connector"
import { Duration, Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { checkConfig, formatLocated } from "../src/config/index.ts"
import { configFiles } from "./support/ConfigFiles.ts"

const { write } = configFiles("warden-config-ops-")
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"

/** A connector with a string, a number and a boolean key, known without importing. */
const mod = Connector.make({
  type: "mod",
  configSchema: Schema.Struct({ room: Schema.String, size: Schema.Int, loud: Schema.Boolean }),
  capabilities: { actions: [], duplicates: "never", contentTypes: ["text"] },
  make: () => Effect.die("not in tests")
})

const check = (text: string, env: Record<string, string> = {}) =>
  Effect.runPromise(Effect.result(checkConfig(write(text), { env: { KEY: "k", ...env }, builtins: [mod] })))

const head = "api:\n  apiKey: ${env:KEY}\n  baseUrl: https://api.example.com\n"
const source = (config: string) =>
  `sources:\n  - id: s\n    type: mod\n    channelId: ${CHANNEL}\n    config: ${config}\n`

describe("the config file as operators write it", () => {
  it("takes durations in the short form (5s, 500ms, 2m, 1h) in the daemon's keys", async () => {
    const r = await check(
      `${head}  timeout: 5s\n  retry: { baseDelay: 500ms, maxDelay: 2m, maxElapsed: 1h }\n${source("{ room: r, size: 1, loud: false }")}`
    )
    if (r._tag === "Failure") throw new Error(r.failure.message)
    expect(Duration.toMillis(r.success.config.api.timeout)).toBe(5000)
    expect(Duration.toMillis(r.success.config.api.retry.baseDelay)).toBe(500)
    expect(Duration.toMillis(r.success.config.api.retry.maxDelay)).toBe(120_000)
    expect(Duration.toMillis(r.success.config.api.retry.maxElapsed)).toBe(3_600_000)
  })

  it("${env:NAME:-default} takes the default when the variable is unset or empty, the variable otherwise", async () => {
    const text = `${head.replace("baseUrl: https://api.example.com", "baseUrl: ${env:BASE:-https://default.example.com}")}${source("{ room: r, size: 1, loud: false }")}`
    const unset = await check(text)
    const empty = await check(text, { BASE: "" })
    const set = await check(text, { BASE: "https://set.example.com" })
    if (unset._tag === "Failure" || empty._tag === "Failure" || set._tag === "Failure") throw new Error("refused")
    expect(unset.success.config.api.baseUrl).toBe("https://default.example.com")
    expect(empty.success.config.api.baseUrl).toBe("https://default.example.com")
    expect(set.success.config.api.baseUrl).toBe("https://set.example.com")
  })

  it("a reference alone fills a number or a boolean key, in the daemon's keys and a connector's; a string key stays a string", async () => {
    const r = await check(
      `${head}  retry:\n    maxAttempts: \${env:ATTEMPTS}\ndryRun: \${env:DRY}\n${source("{ room: '${env:ROOM}', size: '${env:SIZE}', loud: '${env:LOUD}' }")}`,
      { ATTEMPTS: "3", DRY: "true", ROOM: "123", SIZE: "40", LOUD: "false" }
    )
    if (r._tag === "Failure") throw new Error(r.failure.message)
    expect(r.success.config.api.retry.maxAttempts).toBe(3)
    expect(r.success.config.dryRun).toBe(true)
    expect(r.success.config.sources[0]!.config).toEqual({ room: "123", size: 40, loud: false })
  })

  it("a reference that is no number where a number goes is refused at its key", async () => {
    const r = await check(
      `${head}  retry:\n    maxAttempts: \${env:ATTEMPTS}\n${source("{ room: r, size: 1, loud: false }")}`,
      {
        ATTEMPTS: "many"
      }
    )
    if (r._tag === "Success") throw new Error("accepted")
    expect(r.failure.problems.map((p) => `${p.path}: ${p.message}`)).toContain("api.retry.maxAttempts: expected number")
  })

  it("${NAME} without env: is an error with the fix, not a literal", async () => {
    const r = await check(`${head.replace("${env:KEY}", "${KEY}")}${source("{ room: r, size: 1, loud: false }")}`)
    if (r._tag === "Success") throw new Error("accepted")
    const problem = r.failure.problems.find((p) => p.path === "api.apiKey")
    expect(problem?.message).toBe(
      "${KEY} is not a reference: write ${env:KEY} for the environment variable (or $${KEY} for the text itself)"
    )
  })

  it("every problem carries FILE:LINE:COLUMN of its key (or of the closest written parent)", async () => {
    const path = write(`${head}  timeout: soon\n${source("{ room: r, size: 1 }")}`)
    const r = await Effect.runPromise(Effect.result(checkConfig(path, { env: { KEY: "k" }, builtins: [mod] })))
    if (r._tag === "Success") throw new Error("accepted")
    const lines = r.failure.problems.map((p) => formatLocated(p))
    expect(lines).toContain(
      `${path}:4:12: api.timeout: expected a duration such as '500ms', '10s', '5m', '1h' or '10 seconds'`
    )
    expect(lines).toContain(`${path}:9:13: sources.0.config.loud: required key is missing`)
  })
})
