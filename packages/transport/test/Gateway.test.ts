/**
 * One retry policy and one set of defaults for every client: a gateway's HTML page (502/503/504) is
 * retried like the API's own 503, and the defaults the code applies are the ones the README states.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as ApiConfig from "../src/ApiConfig.ts"
import * as RetryPolicy from "../src/RetryPolicy.ts"
import { Transport } from "../src/Transport.ts"
import { ok, startServer } from "../src/testing/index.ts"

const KEY = "gateway-test-key"
const fast = { baseDelay: Duration.millis(5), maxDelay: Duration.millis(20) }
const badGateway = { status: 502, body: "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>" }

const send = Effect.flatMap(Transport, (t) =>
  t.send({ endpoint: "analyzeText", body: '{"channelId":"c","text":"hi"}' })
)

describe("a gateway's error page", () => {
  it.live("a 502 HTML page is retried like a 503 TRANSIENT_ERROR, and the call succeeds", () =>
    Effect.gen(function* () {
      const server = yield* startServer((n) => (n < 2 ? badGateway : ok()))
      const response = yield* send.pipe(
        Effect.provide(Transport.layerOptions({ apiKey: KEY, baseUrls: { global: server.url }, retry: fast }))
      )
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.attempts, 3)
    }).pipe(Effect.scoped)
  )

  it.live("after its retries, a gateway page fails as TransientError naming the status", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => badGateway)
      const error = yield* send.pipe(
        Effect.provide(
          Transport.layerOptions({
            apiKey: KEY,
            baseUrls: { global: server.url },
            retry: { ...fast, maxAttempts: 2 }
          })
        ),
        Effect.flip
      )
      assert.strictEqual(error._tag, "TransientError")
      assert.include(error.message, "HTTP 502 from a gateway")
      assert.strictEqual(server.requests.length, 2)
    }).pipe(Effect.scoped)
  )
})

describe("the defaults", () => {
  it.effect("are one set: a 10 s timeout, 5 attempts, 200 millis, 5 seconds, 30 seconds", () =>
    Effect.gen(function* () {
      const config = yield* ApiConfig.make({ apiKey: KEY, baseUrls: { global: "http://127.0.0.1:1" } })
      assert.strictEqual(Duration.toMillis(config.timeout), 10_000)
      assert.deepStrictEqual(config.retry, RetryPolicy.defaults)
      assert.deepStrictEqual(RetryPolicy.defaults, {
        maxAttempts: 5,
        baseDelay: "200 millis",
        maxDelay: "5 seconds",
        maxElapsed: "30 seconds"
      })
    })
  )

  it("the README states the defaults the code applies", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
    const row = (name: string) => readme.split("\n").find((l) => l.startsWith(`| \`${name}\``)) ?? ""
    assert.include(row("WARDEN_TIMEOUT"), `\`${ApiConfig.DEFAULT_TIMEOUT}\``)
    const retry = row("WARDEN_RETRY_MAX_ATTEMPTS")
    for (const value of Object.values(RetryPolicy.defaults)) assert.include(retry, `\`${value}\``)
  })
})
