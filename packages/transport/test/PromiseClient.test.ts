/**
 * `PromiseClient.Runtime` while its runtime is not built: a call made then keeps the promises of any
 * call (its deadline, its signal; failures are `WardenError`s), even when the build hangs or fails.
 */
import { AbortError, TimeoutError, WardenError } from "@warden/core/errors"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { assert, describe, it } from "vitest"
import * as PromiseClient from "../src/PromiseClient.ts"

const options = { apiKey: "k", baseUrl: "http://127.0.0.1:9", env: {} }

/** A client whose services' layer is `services` (no request is ever sent). */
const client = (services: Layer.Layer<never>, extra: PromiseClient.ClientOptions = {}) =>
  new PromiseClient.Runtime(services, { ...options, ...extra }, PromiseClient.resolve({ ...options, ...extra }, "v1"))

/**
 * How `promise` settled, or that it had not within 20 s: a hang guard, not a speed bound. The failing
 * build imports and builds the client's layers first, which took over 2 s (the bound before) at the
 * start of a loaded CI run (load 28, two suites importing at once).
 */
const outcome = (promise: Promise<unknown>): Promise<unknown> =>
  Promise.race([
    promise.then(
      () => "resolved",
      (error: unknown) => error
    ),
    new Promise((resolve) => setTimeout(resolve, 20_000, "still pending after 20 s"))
  ])

describe("a call made before the client's runtime is built", () => {
  it("a build that fails rejects each call with a WardenError INTERNAL_ERROR carrying the build's error", {
    timeout: 60_000
  }, async () => {
    const cause = new Error("cannot find module 'undici'")
    const runtime = client(Layer.effectDiscard(Effect.die(cause)))
    try {
      for (const _ of [1, 2]) {
        const error = await outcome(runtime.run("POST /x", () => Effect.succeed(1)))
        assert.instanceOf(error, WardenError)
        assert.strictEqual((error as WardenError).code, "INTERNAL_ERROR")
        assert.strictEqual((error as WardenError).cause, cause)
      }
    } finally {
      await runtime.close()
    }
  })

  it("a build that hangs: the call keeps its deadline and its signal", { timeout: 60_000 }, async () => {
    const runtime = client(Layer.effectDiscard(Effect.never), { timeout: 100 })
    try {
      assert.instanceOf(await outcome(runtime.run("POST /x", () => Effect.succeed(1))), TimeoutError)
      const controller = new AbortController()
      const aborted = outcome(
        runtime.run("POST /x", () => Effect.succeed(1), { signal: controller.signal, timeout: 60_000 })
      )
      controller.abort()
      assert.instanceOf(await aborted, AbortError)
    } finally {
      await runtime.close()
    }
  })
})
