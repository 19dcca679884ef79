import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Metric } from "effect"
import { TestClock } from "effect/testing"
import * as RegionPolicy from "../src/RegionPolicy.ts"
import type * as ApiConfig from "../src/ApiConfig.ts"
import { RateLimiter } from "../src/RateLimiter.ts"
import { CallOptions, Transport } from "../src/Transport.ts"
import { VERSION } from "../src/Version.ts"
import { envelope, ok, startServer, transient } from "../src/testing/index.ts"

const KEY = "test-secret-key-5f1c"
const fast = { baseDelay: Duration.millis(5), maxDelay: Duration.millis(20) }

const withTransport = <A, E>(input: ApiConfig.Input, use: Effect.Effect<A, E, Transport | RateLimiter>) =>
  use.pipe(Effect.provide(Transport.layerOptions(input)))

const send = (body = '{"channelId":"x","text":"hi"}', endpoint: "analyzeText" | "legacyAnalyze" = "analyzeText") =>
  Effect.flatMap(Transport, (t) => t.send({ endpoint, body }))

describe("Transport", () => {
  it.live("sends the auth, content type, user agent and request id headers, and the body byte-for-byte", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok())
      const body = '{ "text":"h\\u00e9llo",  "channelId":"c" , "n": 1.50 }'
      const response = yield* withTransport({ apiKey: KEY, baseUrls: { global: server.url } }, send(body))
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.attempts, 1)
      const [req] = server.requests
      assert.strictEqual(req!.url, "/analyze/v1/text")
      assert.strictEqual(req!.method, "POST")
      assert.strictEqual(req!.body, body)
      assert.strictEqual(req!.headers.authorization, `ApiKey ${KEY}`)
      assert.strictEqual(req!.headers["content-type"], "application/json")
      assert.match(req!.headers["user-agent"]!, new RegExp(`^warden/${VERSION.replaceAll(".", "\\.")} `))
      assert.strictEqual(req!.headers["x-request-id"], response.requestId)
      assert.match(response.requestId, /^[0-9a-f-]{36}$/)
    }).pipe(Effect.scoped)
  )

  it.live("sends the legacy key as X-Api-Key to the legacy host, never as Authorization", () =>
    Effect.gen(function* () {
      const v1 = yield* startServer(() => ok())
      const legacy = yield* startServer(() => ok({ data: [], errors: [] }))
      const response = yield* withTransport(
        { apiKey: KEY, legacyApiKey: "legacy-key", baseUrls: { global: v1.url }, legacyBaseUrl: legacy.url },
        send('{"channelUuid":"c","contents":[]}', "legacyAnalyze")
      )
      assert.strictEqual(response.region, "legacy")
      assert.strictEqual(v1.requests.length, 0)
      assert.strictEqual(legacy.requests[0]!.url, "/api/analyze")
      assert.strictEqual(legacy.requests[0]!.headers["x-api-key"], "legacy-key")
      assert.strictEqual(legacy.requests[0]!.headers.authorization, undefined)
    }).pipe(Effect.scoped)
  )

  describe("a graceful stop (CallOptions.stop)", () => {
    /** Forks `send()` with a stop; returns the fiber and the stop. */
    const sendStoppable = Effect.gen(function* () {
      const stop = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(Effect.provideService(send(), CallOptions, { stop }))
      return { fiber, stop }
    })
    const received = (server: { requests: ReadonlyArray<unknown> }, n: number) =>
      Effect.gen(function* () {
        while (server.requests.length < n) yield* Effect.sleep("5 millis")
      })

    it.live("waits for the attempt on the wire and returns its answer", () =>
      Effect.gen(function* () {
        const server = yield* startServer(() => ({ ...ok(), delayMillis: 300 }))
        yield* withTransport(
          { apiKey: KEY, baseUrls: { global: server.url } },
          Effect.gen(function* () {
            const { fiber, stop } = yield* sendStoppable
            yield* received(server, 1)
            yield* Deferred.succeed(stop, undefined)
            const response = yield* Fiber.join(fiber)
            assert.strictEqual(response.status, 200)
            assert.strictEqual(server.requests.length, 1)
          })
        )
      }).pipe(Effect.scoped)
    )

    it.live("starts no retry: a retry's delay ends interrupted at once", () =>
      Effect.gen(function* () {
        const server = yield* startServer(() => transient)
        yield* withTransport(
          {
            apiKey: KEY,
            baseUrls: { global: server.url },
            retry: { baseDelay: Duration.seconds(20), maxDelay: Duration.seconds(20) }
          },
          Effect.gen(function* () {
            const { fiber, stop } = yield* sendStoppable
            yield* received(server, 1)
            yield* Effect.sleep("50 millis") // in the retry's 20 s delay by now
            const stoppedAt = Date.now()
            yield* Deferred.succeed(stop, undefined)
            const exit = yield* Fiber.await(fiber)
            assert.isTrue(Exit.hasInterrupts(exit))
            assert.isBelow(Date.now() - stoppedAt, 5_000)
            assert.strictEqual(server.requests.length, 1)
          })
        )
      }).pipe(Effect.scoped)
    )

    it.live("sends nothing for a call waiting for the limiter, or started after the stop", () =>
      Effect.gen(function* () {
        const server = yield* startServer(() => ok())
        yield* withTransport(
          {
            apiKey: KEY,
            baseUrls: { global: server.url },
            quotas: { endpoints: { analyzeText: { requestsPerSecond: 0.05, burst: 1 } } }
          },
          Effect.gen(function* () {
            const first = yield* sendStoppable
            yield* Fiber.join(first.fiber) // the bucket's one token
            const waiting = yield* sendStoppable // the next token is 20 s away
            yield* Effect.sleep("50 millis")
            yield* Deferred.succeed(waiting.stop, undefined)
            assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(waiting.fiber)))
            const late = yield* Effect.provideService(Effect.exit(send()), CallOptions, { stop: waiting.stop })
            assert.isTrue(Exit.hasInterrupts(late))
            assert.strictEqual(server.requests.length, 1)
          })
        )
      }).pipe(Effect.scoped)
    )
  })

  it.live("retries a 503 with the same request id, and succeeds", () =>
    Effect.gen(function* () {
      const server = yield* startServer((n) => (n < 2 ? transient : ok()))
      const response = yield* withTransport({ apiKey: KEY, baseUrls: { global: server.url }, retry: fast }, send())
      assert.strictEqual(response.attempts, 3)
      assert.strictEqual(server.requests.length, 3)
      assert.strictEqual(new Set(server.requests.map((r) => r.headers["x-request-id"])).size, 1)
    }).pipe(Effect.scoped)
  )

  it.live("gives up on a 503 after maxAttempts, failing with TransientError", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => transient)
      const error = yield* withTransport(
        { apiKey: KEY, baseUrls: { global: server.url }, retry: { ...fast, maxAttempts: 3 } },
        Effect.flip(send())
      )
      assert.strictEqual(error._tag, "TransientError")
      assert.strictEqual(server.requests.length, 3)
    }).pipe(Effect.scoped)
  )

  const never = [
    [
      400,
      "BAD_REQUEST_ERROR",
      { badRequestError: { fieldViolations: [{ field: "text", message: "bad" }] } },
      "BadRequestError"
    ],
    [
      401,
      "AUTHENTICATION_ERROR",
      { authenticationError: { reason: "REASON_INVALID_CREDENTIALS" } },
      "AuthenticationError"
    ],
    [
      403,
      "PERMISSION_DENIED_ERROR",
      { permissionDeniedError: { permission: "p", resourceIdentifier: "r" } },
      "PermissionDeniedError"
    ],
    [404, "NOT_FOUND_ERROR", { notFoundError: { resourceIdentifier: "r" } }, "NotFoundError"],
    [409, "CONFLICT_ERROR", { conflictError: { reason: "r" } }, "ConflictError"],
    [412, "PRECONDITION_FAILED_ERROR", { preconditionFailedError: { reason: "r" } }, "PreconditionFailedError"],
    [
      429,
      "QUOTA_ERROR",
      { quotaError: { violations: [{ quotaName: "analyze.message.requests_per_second", quotaValue: 5 }] } },
      "QuotaError"
    ]
  ] as const
  for (const [status, code, details, tag] of never) {
    it.live(`never retries a ${status} ${code}, failing with ${tag}`, () =>
      Effect.gen(function* () {
        const server = yield* startServer(() => envelope(status, code, details))
        const error = yield* withTransport(
          { apiKey: KEY, baseUrls: { global: server.url }, retry: fast },
          Effect.flip(send())
        )
        assert.strictEqual(error._tag, tag)
        assert.strictEqual(server.requests.length, 1)
      }).pipe(Effect.scoped)
    )
  }

  it.live("a 429 surfaces its violations and slows the endpoint's limiter down", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() =>
        envelope(429, "QUOTA_ERROR", {
          quotaError: { violations: [{ quotaName: "analyze.message.requests_per_second", quotaValue: 4 }] }
        })
      )
      const [error, status] = yield* withTransport(
        {
          apiKey: KEY,
          baseUrls: { global: server.url },
          quotas: { endpoints: { analyzeText: { requestsPerSecond: 20, burst: 20 } } }
        },
        Effect.gen(function* () {
          const error = yield* Effect.flip(send())
          const limiter = yield* RateLimiter
          return [error, yield* limiter.status("analyzeText")] as const
        })
      )
      assert.strictEqual(error._tag, "QuotaError")
      assert.deepStrictEqual(error._tag === "QuotaError" ? error.violations : [], [
        { quotaName: "analyze.message.requests_per_second", quotaValue: 4 }
      ])
      assert.ok(status?.currentRate !== undefined && status.currentRate < 5, `rate after 429: ${status?.currentRate}`)
      assert.strictEqual(status?.learntRate, 4)
    }).pipe(Effect.scoped)
  )

  it.live("with no quota configured, the first 429 teaches the limiter the named quota", () =>
    Effect.gen(function* () {
      const server = yield* startServer((n) =>
        n === 0
          ? envelope(429, "QUOTA_ERROR", {
              quotaError: { violations: [{ quotaName: "analyze.message.requests_per_second", quotaValue: 10 }] }
            })
          : ok()
      )
      const [before, after] = yield* withTransport(
        { apiKey: KEY, baseUrls: { global: server.url } },
        Effect.gen(function* () {
          const limiter = yield* RateLimiter
          yield* Effect.flip(send())
          const before = (yield* limiter.status("analyzeText"))?.currentRate !== undefined
          yield* send()
          return [before, yield* limiter.status("analyzeText")] as const
        })
      )
      assert.isTrue(before)
      assert.strictEqual(after?.configuredRate, undefined)
      assert.strictEqual(after?.learntRate, 10)
      assert.strictEqual(after?.currentRate, 9.8)
      assert.strictEqual(after?.recent429s, 1)
    }).pipe(Effect.scoped)
  )

  it.live("a call built before the quota was learnt waits for the limiter when it runs after (and again)", () =>
    Effect.gen(function* () {
      // the first request is refused naming 4/s; the rest are accepted
      const server = yield* startServer((n) =>
        n === 0
          ? envelope(429, "QUOTA_ERROR", {
              quotaError: { violations: [{ quotaName: "analyze.message.requests_per_second", quotaValue: 4 }] }
            })
          : ok()
      )
      yield* withTransport(
        { apiKey: KEY, baseUrls: { global: server.url } },
        Effect.gen(function* () {
          const transport = yield* Transport
          // built while the quota is unknown, as a client builds an item's call once and runs it again
          // after a 429 (the daemon's Analyzer does)
          const call = transport.sendInCurrentSpan({ endpoint: "analyzeText", body: '{"channelId":"x","text":"hi"}' })
          yield* Effect.flip(call)
          for (let i = 0; i < 3; i++) yield* call
        })
      )
      // paced at 3.92/s from the 429 on (its bucket spent): 255 ms apart at least. Built eagerly, the
      // limiter was decided when the call was built (unlimited then) and all three went at once.
      const at = server.requests.map((r) => r.at)
      assert.strictEqual(at.length, 4)
      assert.isAtLeast(at[3]! - at[0]!, 2 * 250, `sent at +${at.map((t) => t - at[0]!).join(", +")} ms`)
    }).pipe(Effect.scoped)
  )

  it.live("an answer that never comes is a Timeout TransportError, retried", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ({ hang: true }))
      const error = yield* withTransport(
        {
          apiKey: KEY,
          baseUrls: { global: server.url },
          timeout: Duration.millis(150),
          retry: { ...fast, maxAttempts: 2 }
        },
        Effect.flip(send())
      )
      assert.strictEqual(error._tag, "TransportError")
      assert.strictEqual(error._tag === "TransportError" ? error.reason : "", "Timeout")
      assert.strictEqual(server.requests.length, 2)
    }).pipe(Effect.scoped)
  )

  it.live("a dropped connection is retried and the call succeeds", () =>
    Effect.gen(function* () {
      const server = yield* startServer((n) => (n === 0 ? { drop: true } : ok()))
      const response = yield* withTransport({ apiKey: KEY, baseUrls: { global: server.url }, retry: fast }, send())
      assert.strictEqual(response.attempts, 2)
      assert.strictEqual(server.requests.length, 2)
    }).pipe(Effect.scoped)
  )

  it.live("a refused connection is a Connect TransportError after every attempt", () =>
    Effect.gen(function* () {
      // Port 9 (discard) has no listener on loopback: the connection is refused.
      const error = yield* withTransport(
        { apiKey: KEY, baseUrls: { global: "http://127.0.0.1:9" }, retry: { ...fast, maxAttempts: 2 } },
        Effect.flip(send())
      )
      assert.strictEqual(error._tag, "TransportError")
      assert.strictEqual(error._tag === "TransportError" ? error.reason : "", "Connect")
    }).pipe(Effect.scoped)
  )

  it.live(
    "a non-JSON error answer (not from a gateway) is a ResponseDecodeError keeping the raw body, not retried",
    () =>
      Effect.gen(function* () {
        const server = yield* startServer(() => ({ status: 500, body: "<html>internal error</html>" }))
        const error = yield* withTransport(
          { apiKey: KEY, baseUrls: { global: server.url }, retry: fast },
          Effect.flip(send())
        )
        assert.strictEqual(error._tag, "ResponseDecodeError")
        assert.strictEqual(error._tag === "ResponseDecodeError" ? error.body : "", "<html>internal error</html>")
        assert.strictEqual(server.requests.length, 1)
      }).pipe(Effect.scoped)
  )

  it.live("fails over to the next region when the first keeps answering 503, and stays there", () =>
    Effect.gen(function* () {
      const east = yield* startServer(() => transient)
      const west = yield* startServer(() => ok())
      const [first, second] = yield* withTransport(
        {
          apiKey: KEY,
          region: "us-east",
          failover: ["us-west"],
          baseUrls: { "us-east": east.url, "us-west": west.url },
          retry: { ...fast, maxAttempts: 2 }
        },
        Effect.all([send(), send()])
      )
      assert.strictEqual(first.region, "us-west")
      assert.strictEqual(first.attempts, 3)
      assert.strictEqual(second.region, "us-west")
      assert.strictEqual(second.attempts, 1)
      assert.strictEqual(east.requests.length, 2)
      assert.strictEqual(west.requests.length, 2)
      assert.strictEqual(west.requests[0]!.headers.authorization, `ApiKey ${KEY}`)
    }).pipe(Effect.scoped)
  )

  it.live("does not fail over on an answer that is not transient (a 400 is the caller's problem)", () =>
    Effect.gen(function* () {
      const east = yield* startServer(() =>
        envelope(400, "BAD_REQUEST_ERROR", { badRequestError: { fieldViolations: [] } })
      )
      const west = yield* startServer(() => ok())
      const error = yield* withTransport(
        {
          apiKey: KEY,
          region: "us-east",
          failover: ["us-west"],
          baseUrls: { "us-east": east.url, "us-west": west.url }
        },
        Effect.flip(send())
      )
      assert.strictEqual(error._tag, "BadRequestError")
      assert.strictEqual(west.requests.length, 0)
    }).pipe(Effect.scoped)
  )

  it.live("the limiter keeps concurrent callers at the configured rate", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok())
      yield* withTransport(
        {
          apiKey: KEY,
          baseUrls: { global: server.url },
          quotas: { endpoints: { analyzeText: { requestsPerSecond: 20, burst: 2 } } }
        },
        Effect.all(
          Array.from({ length: 22 }, () => send()),
          { concurrency: 22 }
        )
      )
      const times = server.requests.map((r) => r.at).sort((a, b) => a - b)
      const span = times.at(-1)! - times[0]!
      // 2 go at once, the other 20 at 20/s: about a second
      assert.ok(span >= 900, `22 calls at 20/s burst 2 took ${span} ms`)
      // never more than burst + rate * window in any window of one second
      for (const t of times) assert.ok(times.filter((u) => u >= t && u < t + 1000).length <= 22)
    }).pipe(Effect.scoped)
  )

  it.live("records warden_api_* metrics with low-cardinality labels", () =>
    Effect.gen(function* () {
      const server = yield* startServer((n) => (n === 0 ? transient : ok()))
      yield* withTransport({ apiKey: KEY, baseUrls: { global: server.url }, retry: fast }, send())
      const snapshot = yield* Metric.snapshot
      const find = (id: string, attributes: Record<string, string>) =>
        snapshot.find(
          (m) =>
            m.id === id &&
            Object.entries(attributes).every(
              ([k, v]) => (m.attributes as Record<string, string> | undefined)?.[k] === v
            )
        )
      const ok200 = find("warden_api_requests_total", { endpoint: "analyzeText", region: "global", status: "200" })
      const s503 = find("warden_api_requests_total", { endpoint: "analyzeText", region: "global", status: "503" })
      assert.ok(ok200 && (ok200.state as { count: number }).count >= 1)
      assert.ok(s503 && (s503.state as { count: number }).count >= 1)
      assert.ok(find("warden_api_retries_total", { endpoint: "analyzeText", reason: "TRANSIENT_ERROR" }))
      assert.ok(find("warden_api_request_duration_seconds", { endpoint: "analyzeText", region: "global" }))
      for (const m of snapshot.filter((m) => m.id.startsWith("warden_api_"))) {
        for (const value of Object.values((m.attributes ?? {}) as Record<string, string>)) {
          assert.notInclude(value, KEY)
          assert.ok(value.length < 40, `label value ${value} looks high-cardinality`)
        }
      }
    }).pipe(Effect.scoped)
  )

  it.live("interrupting a call aborts its HTTP request (the connection is closed, not left hanging)", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ({ hang: true }))
      const [result, open] = yield* withTransport(
        { apiKey: KEY, baseUrls: { global: server.url }, timeout: Duration.seconds(30) },
        Effect.gen(function* () {
          const result = yield* Effect.timeoutOption(send(), Duration.millis(200))
          // the transport (and its connection pool) is still alive here: only the abort can close it
          for (let i = 0; i < 50 && server.openConnections() > 0; i++) yield* Effect.sleep(Duration.millis(20))
          return [result, server.openConnections()] as const
        })
      )
      assert.strictEqual(result._tag, "None")
      assert.strictEqual(server.requests.length, 1)
      assert.strictEqual(open, 0)
    }).pipe(Effect.scoped)
  )

  it.effect("a failed-over client goes back to the first region after recoverAfter", () =>
    Effect.gen(function* () {
      const state = RegionPolicy.makeState(
        RegionPolicy.failover(["us-east", "us-west"], { recoverAfter: "60 seconds" })
      )
      assert.deepStrictEqual(yield* state.plan, ["us-east", "us-west"])
      yield* state.markDown("us-east")
      assert.deepStrictEqual(yield* state.plan, ["us-west", "us-east"])
      yield* TestClock.adjust(Duration.seconds(59))
      assert.strictEqual(yield* state.current, "us-west")
      yield* TestClock.adjust(Duration.seconds(1))
      assert.strictEqual(yield* state.current, "us-east")
    })
  )
})
