import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import pkg from "../package.json" with { type: "json" }
import * as RateLimiter from "../src/RateLimiter.ts"
import * as RetryPolicy from "../src/RetryPolicy.ts"
import { userAgent, VERSION } from "../src/Version.ts"

describe("Version", () => {
  it("matches package.json and names Warden in the User-Agent", () => {
    assert.strictEqual(VERSION, pkg.version)
    assert.match(userAgent("svc/1"), /^warden\/\d+\.\d+\.\d+ \(@warden\/transport; node\/[\d.]+\) svc\/1$/)
  })
})

describe("RetryPolicy", () => {
  const options = RetryPolicy.make({ baseDelay: Duration.millis(100), maxDelay: Duration.millis(1000), maxAttempts: 5 })
  it("full jitter: a draw in [0, min(maxDelay, base * 2^(n-1))]", () => {
    assert.strictEqual(
      RetryPolicy.delayMillis(options, 1, () => 0),
      0
    )
    assert.strictEqual(
      RetryPolicy.delayMillis(options, 1, () => 0.999),
      99
    )
    assert.strictEqual(
      RetryPolicy.delayMillis(options, 3, () => 0.999),
      399
    )
    assert.strictEqual(
      RetryPolicy.delayMillis(options, 10, () => 0.999),
      999
    )
  })
  it("retries only transient answers and missing answers, within both budgets", () => {
    for (const tag of ["TransientError", "TransportError"]) assert.isTrue(RetryPolicy.isRetryable({ _tag: tag }))
    for (const tag of [
      "BadRequestError",
      "AuthenticationError",
      "PermissionDeniedError",
      "NotFoundError",
      "ConflictError",
      "PreconditionFailedError",
      "QuotaError",
      "ResponseDecodeError"
    ]) {
      assert.isFalse(RetryPolicy.isRetryable({ _tag: tag }))
    }
    assert.isTrue(RetryPolicy.mayRetry(options, 4, 0, 0))
    assert.isFalse(RetryPolicy.mayRetry(options, 5, 0, 0))
    assert.isFalse(RetryPolicy.mayRetry(options, 1, 29_990, 20))
  })
})

describe("RateLimiter (TestClock)", () => {
  it.effect("paces after the burst, halves on a 429, and climbs back to the configured rate", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiter.make({
        endpoints: { analyzeText: { requestsPerSecond: 10, burst: 3 } },
        margin: 0
      })
      // the burst goes at once
      for (let i = 0; i < 3; i++) assert.strictEqual(yield* limiter.acquire("analyzeText"), 0)
      // the next waits 100 ms
      const fiber = yield* Effect.forkChild(limiter.acquire("analyzeText"))
      yield* TestClock.adjust(Duration.millis(100))
      assert.strictEqual(yield* Fiber.join(fiber), 100)
      // an endpoint without a rate is not limited
      assert.strictEqual(yield* limiter.acquire("feedbackText"), 0)
      yield* limiter.penalize("analyzeText", [])
      assert.strictEqual((yield* limiter.status("analyzeText"))!.currentRate, 5)
      // a quota value named by the server caps it lower
      yield* limiter.penalize("analyzeText", [{ quotaName: "analyze.message.requests_per_second", quotaValue: 2 }])
      assert.strictEqual((yield* limiter.status("analyzeText"))!.currentRate, 2)
      yield* TestClock.adjust(Duration.seconds(5))
      assert.strictEqual((yield* limiter.status("analyzeText"))!.currentRate, 7)
      yield* TestClock.adjust(Duration.seconds(10))
      assert.strictEqual((yield* limiter.status("analyzeText"))!.currentRate, 10)
    })
  )

  it.effect("keeps a margin below the quota by default", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiter.make({ endpoints: { analyzeText: { requestsPerSecond: 20, burst: 5 } } })
      const status = (yield* limiter.status("analyzeText"))!
      assert.strictEqual(status.currentRate, 19)
      assert.strictEqual(status.tokens, 4)
    })
  )
})
