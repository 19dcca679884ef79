/**
 * The key never leaks: not in a log line, an error's message or string form, its JSON, a span
 * attribute or event, nor the resolved config's string form — across successes, every failure kind,
 * retries and failover (which all log, trace and fail).
 */
import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { recordingTracer } from "@warden/vitest-config/RecordingTracer"
import { Cause, ConfigProvider, Duration, Effect, Exit, Logger } from "effect"
import type * as ApiConfigModule from "../src/ApiConfig.ts"
import { ApiConfig, make as makeConfig } from "../src/ApiConfig.ts"
import { Transport } from "../src/Transport.ts"
import { envelope, ok, startServer, transient } from "../src/testing/index.ts"

const KEY = "sk-live-7d3f9a2b1c4e5f60"
const LEGACY_KEY = "legacy-3e8a1f0c9b2d"

describe("the key is Redacted everywhere", () => {
  it.live("in logs, errors, spans and the config", () =>
    Effect.gen(function* () {
      const east = yield* startServer(() => transient)
      const west = yield* startServer((n) =>
        n === 0
          ? ok()
          : n === 1
            ? envelope(401, "AUTHENTICATION_ERROR", { authenticationError: { reason: "REASON_INVALID_CREDENTIALS" } })
            : n === 2
              ? { status: 500, body: "oops" }
              : { hang: true }
      )
      const legacy = yield* startServer(() => ({ drop: true }))
      const logs: Array<string> = []
      const { spans, tracer } = recordingTracer()
      const logger = Logger.make(({ message, cause }) => {
        logs.push(inspect(message, { depth: 10 }), Cause.pretty(cause))
      })
      const input: ApiConfigModule.Input = {
        apiKey: KEY,
        legacyApiKey: LEGACY_KEY,
        region: "us-east",
        failover: ["us-west"],
        baseUrls: { "us-east": east.url, "us-west": west.url },
        legacyBaseUrl: legacy.url,
        timeout: Duration.millis(100),
        retry: { baseDelay: Duration.millis(1), maxDelay: Duration.millis(2), maxAttempts: 2 }
      }
      const exits = yield* Effect.gen(function* () {
        const t = yield* Transport
        const send = (endpoint: "analyzeText" | "legacyAnalyze") =>
          Effect.exit(t.send({ endpoint, body: '{"channelId":"c","text":"hi"}' }))
        const results = [yield* send("analyzeText"), yield* send("analyzeText"), yield* send("analyzeText")]
        results.push(yield* send("analyzeText"), yield* send("legacyAnalyze"))
        yield* Effect.logError("config in use", t.config)
        return results
      }).pipe(
        Effect.provide(Transport.layerOptions(input)),
        Effect.withTracer(tracer),
        Effect.provide(Logger.layer([logger]))
      )
      // every kind of outcome happened
      const tags = exits.map((e) =>
        Exit.isSuccess(e) ? "ok" : String((Cause.squash(e.cause) as { _tag: string })._tag)
      )
      assert.deepStrictEqual(
        tags,
        // the 4th: us-west times out twice, then the call fails over back to us-east, which answers 503
        ["ok", "AuthenticationError", "ResponseDecodeError", "TransientError", "TransportError"]
      )
      assert.ok(
        logs.some((l) => l.includes("failing over")),
        "the failover was logged"
      )
      assert.ok(spans.filter((s) => s.name === "Transport.send").length === 5, "one span per call")
      assert.ok(
        spans.some((s) => s.events.some(([name]) => name === "retry")),
        "retries are span events"
      )

      const texts: Array<string> = [...logs]
      for (const exit of exits) {
        if (Exit.isSuccess(exit)) continue
        const error = Cause.squash(exit.cause)
        texts.push(String(error), (error as Error).message, JSON.stringify(error), inspect(error, { depth: 10 }))
        texts.push(Cause.pretty(exit.cause))
      }
      for (const span of spans) {
        texts.push(
          span.name,
          JSON.stringify([...span.attributes]),
          JSON.stringify(span.events, (_, v) => (typeof v === "bigint" ? String(v) : v))
        )
      }
      const config = yield* makeConfig(input)
      texts.push(String(config), JSON.stringify(config), inspect(config, { depth: 10 }))
      for (const text of texts) {
        assert.ok(!text.includes(KEY), `the API key leaked into: ${text.slice(0, 300)}`)
        assert.ok(!text.includes(LEGACY_KEY), `the legacy key leaked into: ${text.slice(0, 300)}`)
      }
      // and it did go on the wire, where it belongs
      assert.strictEqual(west.requests[0]!.headers.authorization, `ApiKey ${KEY}`)
      assert.strictEqual(legacy.requests[0]!.headers["x-api-key"], LEGACY_KEY)
    }).pipe(Effect.scoped)
  )

  it.effect("from the environment: WARDEN_API_KEY is read as Redacted, the legacy key defaults to it", () =>
    Effect.gen(function* () {
      const config = yield* Effect.gen(function* () {
        return yield* ApiConfig
      }).pipe(
        Effect.provide(ApiConfig.layerConfig()),
        Effect.provide(
          ConfigProvider.layer(
            ConfigProvider.fromUnknown({
              WARDEN_API_KEY: KEY,
              WARDEN_KEY_KIND: "reseller",
              WARDEN_REGION: "us-west",
              WARDEN_BASE_URL_US_WEST: "http://west.example/",
              WARDEN_BASE_URL: "http://global.example",
              WARDEN_FAILOVER: "global",
              WARDEN_LEGACY_BASE_URL: "http://legacy.example",
              WARDEN_TIMEOUT: "5 seconds",
              WARDEN_RETRY_MAX_ATTEMPTS: "6",
              WARDEN_RATE_LIMIT_RPS: "12.5"
            })
          )
        )
      )
      assert.strictEqual(config.keyKind, "reseller")
      assert.deepStrictEqual(config.regions, {
        _tag: "Failover",
        regions: ["us-west", "global"],
        recoverAfter: config.regions._tag === "Failover" ? config.regions.recoverAfter : 0
      })
      assert.strictEqual(config.baseUrls["us-west"], "http://west.example")
      assert.strictEqual(config.retry.maxAttempts, 6)
      assert.strictEqual(Duration.toMillis(config.timeout), 5000)
      assert.strictEqual(config.quotas.default?.requestsPerSecond, 12.5)
      assert.strictEqual(config.legacyApiKey, config.apiKey)
      assert.ok(!inspect(config, { depth: 10 }).includes(KEY))
      assert.ok(!JSON.stringify(config).includes(KEY))
    })
  )

  it.effect("a region without a base URL is a configuration error naming the variable", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(makeConfig({ apiKey: KEY, region: "us-east" }))
      assert.strictEqual(error._tag, "ApiConfigError")
      assert.include(error.message, "WARDEN_BASE_URL_US_EAST")
      assert.notInclude(error.message, KEY)
    })
  )
})
