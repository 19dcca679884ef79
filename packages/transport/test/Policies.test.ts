import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import pkg from "../package.json" with { type: "json" }
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
