/**
 * End to end against the in-process sandbox: every endpoint, every error class the sandbox can give,
 * retry counts under each fault kind read back from its request log, timeouts, region failover
 * between two sandboxes, and the client-side limiter keeping a run free of 429s.
 */
import { assert, describe, it } from "@effect/vitest"
import { Sandbox } from "@warden/sandbox"
import { type ApiConfig, type RateLimiter, Transport } from "@warden/transport"
import { Duration, Effect } from "effect"
import { AnalyzeV1 } from "../src/AnalyzeV1.ts"
import { FeedbackV1 } from "../src/FeedbackV1.ts"
import * as V1Client from "../src/V1Client.ts"

const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const fastRetry = { baseDelay: Duration.millis(5), maxDelay: Duration.millis(20), maxAttempts: 4 }

const sandbox = Effect.flatMap(Sandbox.Sandbox, (s) => Effect.succeed(s))

/** Runs `use` with a sandbox and a v1 client on it. */
const withClient = <A, E>(
  input: Partial<ApiConfig.Input>,
  use: (
    s: Sandbox.SandboxShape
  ) => Effect.Effect<A, E, AnalyzeV1 | FeedbackV1 | Transport.Transport | RateLimiter.RateLimiter>
) =>
  Effect.gen(function* () {
    const s = yield* sandbox
    return yield* use(s).pipe(
      Effect.provide(
        V1Client.layerOptions({
          apiKey: "sandbox-standard-key",
          baseUrls: { global: s.url },
          legacyBaseUrl: s.url,
          retry: fastRetry,
          ...input
        })
      )
    )
  }).pipe(Effect.provide(Sandbox.Sandbox.layer()))

/** The requests the sandbox logged for an endpoint, read back from its control API `GET /_sandbox/requests`. */
const requestsTo = (s: Sandbox.SandboxShape, endpoint: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${s.url}/_sandbox/requests`)
    const { requests } = (await response.json()) as {
      requests: Array<{ endpoint: string | null; status: number; body: string; headers: Record<string, string> }>
    }
    return requests.filter((r) => r.endpoint === endpoint)
  })

describe("v1 against the sandbox", () => {
  it.live("analyses text, image and username, and records feedback on the exact body sent", () =>
    withClient({ apiKey: "sandbox-reseller-key", keyKind: "reseller" }, (s) =>
      Effect.gen(function* () {
        const analyze = yield* AnalyzeV1
        const feedback = yield* FeedbackV1
        const text = yield* analyze.textWithRequest({
          channelId: CHANNEL,
          text: "you are an idiot",
          industry: "INDUSTRY_GAMING"
        })
        assert.strictEqual(text.response.textAnalysis?.type, "HATEFUL")
        const image = yield* analyze.imageWithRequest({
          channelId: CHANNEL,
          imageUrl: "https://img.example/cat-[[WEAPONS]].png",
          ocrEnabled: true
        })
        assert.ok(image.response.imageAnalysis?.classifications?.includes("WEAPONS"))
        const username = yield* analyze.username({ channelId: CHANNEL, username: "friendly_bob" })
        assert.ok(username.usernameAnalysis !== undefined)
        const fb = yield* feedback.textWithRequest({
          analyzeRequest: text.request,
          classificationsToRemove: ["INSULT"],
          confidence: "HIGH"
        })
        assert.match(fb.response.id, /^[0-9a-f-]{36}$/)
        // each result carries the answer's text as the sandbox sent it
        assert.deepStrictEqual(JSON.parse(fb.responseText), { ...fb.response })
        assert.deepStrictEqual(JSON.parse(text.responseText), { ...text.response })
        const fbImage = yield* feedback.image({ analyzeRequest: image.request, notes: "not a weapon", ocrIssue: false })
        assert.match(fbImage.id, /^[0-9a-f-]{36}$/)
        // the sandbox saw the analyze body byte-for-byte inside the feedback
        const [stored] = yield* requestsTo(s, "feedbackText")
        assert.ok(stored!.body.startsWith(`{"analyzeRequest":${text.request},`))
        assert.strictEqual(stored!.headers.authorization, "ApiKey <redacted>")
      })
    )
  )

  it.live("every key problem is an AuthenticationError with the spec's reason, never retried", () =>
    Effect.gen(function* () {
      const reasons: Array<string> = []
      for (const key of ["no-such-key", "sandbox-expired-key", "sandbox-disabled-key"]) {
        const error = yield* withClient({ apiKey: key }, (s) =>
          Effect.gen(function* () {
            const e = yield* Effect.flip(Effect.flatMap(AnalyzeV1, (c) => c.text({ channelId: CHANNEL, text: "hi" })))
            assert.strictEqual((yield* requestsTo(s, "analyzeText")).length, 1)
            return e
          })
        )
        assert.strictEqual(error._tag, "AuthenticationError")
        if (error._tag === "AuthenticationError") reasons.push(error.reason)
      }
      assert.deepStrictEqual(reasons, [
        "REASON_INVALID_CREDENTIALS",
        "REASON_EXPIRED_CREDENTIALS",
        "REASON_DISABLED_CREDENTIALS"
      ])
    })
  )

  it.live("the server's 400 and 403 (bodies the client would refuse, sent raw) decode to their classes, once", () =>
    withClient({}, (s) =>
      Effect.gen(function* () {
        const transport = yield* Transport.Transport
        const bad = yield* Effect.flip(transport.send({ endpoint: "analyzeText", body: '{"channelId":"x","text":1}' }))
        assert.strictEqual(bad._tag, "BadRequestError")
        assert.deepStrictEqual(bad._tag === "BadRequestError" ? bad.fieldViolations.map((v) => v.field).sort() : [], [
          "channelId",
          "text"
        ])
        const denied = yield* Effect.flip(
          transport.send({
            endpoint: "analyzeText",
            body: JSON.stringify({ channelId: CHANNEL, text: "hi", industry: "INDUSTRY_MEDIA" })
          })
        )
        assert.strictEqual(denied._tag, "PermissionDeniedError")
        assert.strictEqual((yield* requestsTo(s, "analyzeText")).length, 2)
        // and the client refuses the same two bodies locally, with the same field paths
        const local = yield* Effect.flip(Effect.flatMap(AnalyzeV1, (c) => c.text({ channelId: "x", text: 1 } as never)))
        assert.deepStrictEqual(
          local._tag === "RequestValidationError" ? local.fieldViolations.map((v) => v.field).sort() : [],
          ["channelId", "text"]
        )
        assert.strictEqual((yield* requestsTo(s, "analyzeText")).length, 2)
      })
    )
  )

  it.live("a 404 from a wrong base path is a NotFoundError", () =>
    Effect.gen(function* () {
      const s = yield* sandbox
      const error = yield* Effect.flip(
        Effect.flatMap(AnalyzeV1, (c) => c.text({ channelId: CHANNEL, text: "hi" }))
      ).pipe(
        Effect.provide(
          V1Client.layerOptions({ apiKey: "sandbox-standard-key", baseUrls: { global: `${s.url}/wrong` } })
        )
      )
      assert.strictEqual(error._tag, "NotFoundError")
    }).pipe(Effect.provide(Sandbox.Sandbox.layer()))
  )

  it.live("a 503 is retried up to maxAttempts; a 429 is not retried and names its quota", () =>
    withClient({}, (s) =>
      Effect.gen(function* () {
        const analyze = yield* AnalyzeV1
        const transient = yield* Effect.flip(analyze.text({ channelId: CHANNEL, text: "[[TRANSIENT]] hello" }))
        assert.strictEqual(transient._tag, "TransientError")
        assert.strictEqual((yield* requestsTo(s, "analyzeText")).length, 4)
        yield* s.reset
        const quota = yield* Effect.flip(analyze.text({ channelId: CHANNEL, text: "[[QUOTA]] hello" }))
        assert.strictEqual(quota._tag, "QuotaError")
        assert.strictEqual(
          quota._tag === "QuotaError" ? quota.violations[0]?.quotaName : "",
          "analyze.message.requests_per_second"
        )
        assert.strictEqual((yield* requestsTo(s, "analyzeText")).length, 1)
      })
    )
  )

  it.live(
    "under each fault kind: transient and drop are retried, malformed is not, stall times out and is retried",
    () =>
      withClient({ timeout: Duration.millis(250), retry: { ...fastRetry, maxAttempts: 3 } }, (s) =>
        Effect.gen(function* () {
          const analyze = yield* AnalyzeV1
          const counts: Record<string, [string, number]> = {}
          for (const fault of ["transient", "drop", "malformed", "stall"] as const) {
            yield* s.reset
            yield* s.setFaults({ [fault]: 1, ...(fault === "stall" ? { stallMs: 2000 } : {}) })
            const error = yield* Effect.flip(analyze.text({ channelId: CHANNEL, text: "hello" }))
            counts[fault] = [
              error._tag === "TransportError" ? `TransportError:${error.reason}` : error._tag,
              (yield* requestsTo(s, "analyzeText")).length
            ]
          }
          assert.deepStrictEqual(counts, {
            transient: ["TransientError", 3],
            drop: ["TransportError:Reset", 3],
            malformed: ["ResponseDecodeError", 1],
            stall: ["TransportError:Timeout", 3]
          })
        })
      )
  )

  it.live("a transient fault that clears is absorbed by retries", () =>
    withClient({ retry: { ...fastRetry, maxAttempts: 6 } }, (s) =>
      Effect.gen(function* () {
        yield* s.setFaults({ transient: 0.5, seed: 7 })
        const analyze = yield* AnalyzeV1
        const results = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => analyze.textWithRequest({ channelId: CHANNEL, text: `message ${i}` })
        )
        const logged = yield* requestsTo(s, "analyzeText")
        const attempts = results.reduce((n, r) => n + r.attempts, 0)
        assert.strictEqual(logged.length, attempts)
        assert.ok(attempts > 20, `some retries happened (${attempts} attempts)`)
        assert.strictEqual(logged.filter((r) => r.status === 503).length, attempts - 20)
      })
    )
  )

  it.live("fails over to a second sandbox when the first keeps answering 503", () =>
    Effect.gen(function* () {
      const east = yield* Sandbox.start({})
      const west = yield* Sandbox.start({})
      yield* east.setFaults({ transient: 1 })
      const [first, second] = yield* Effect.flatMap(AnalyzeV1, (c) =>
        Effect.all([
          c.textWithRequest({ channelId: CHANNEL, text: "hello" }),
          c.textWithRequest({ channelId: CHANNEL, text: "again" })
        ])
      ).pipe(
        Effect.provide(
          V1Client.layerOptions({
            apiKey: "sandbox-standard-key",
            region: "us-east",
            failover: ["us-west"],
            baseUrls: { "us-east": east.url, "us-west": west.url },
            retry: { ...fastRetry, maxAttempts: 2 }
          })
        )
      )
      assert.deepStrictEqual(
        [first.region, first.attempts, second.region, second.attempts],
        ["us-west", 3, "us-west", 1]
      )
      assert.strictEqual((yield* east.requests).length, 2)
      assert.strictEqual((yield* west.requests).length, 2)
    }).pipe(Effect.scoped)
  )

  it.live("the limiter keeps a concurrent run at the sandbox's quota with no 429", () =>
    withClient(
      { quotas: { endpoints: { analyzeText: { requestsPerSecond: 20, burst: 5 } } }, retry: { maxAttempts: 1 } },
      (s) =>
        Effect.gen(function* () {
          yield* s.setQuotas({ "*": { analyzeText: { requestsPerSecond: 20, burst: 5 } } })
          const analyze = yield* AnalyzeV1
          const start = Date.now()
          yield* Effect.forEach(
            Array.from({ length: 45 }, (_, i) => i),
            (i) => analyze.text({ channelId: CHANNEL, text: `message ${i}` }),
            { concurrency: 16 }
          )
          const elapsed = Date.now() - start
          const logged = yield* requestsTo(s, "analyzeText")
          assert.strictEqual(logged.length, 45)
          assert.strictEqual(logged.filter((r) => r.status === 429).length, 0)
          // 5 at once, then 40 at 20/s
          assert.ok(elapsed >= 1800, `45 calls at 20/s burst 5 took ${elapsed} ms`)
        })
    )
  )

  it.live("without the limiter the same run does see 429s (the test above can fail)", () =>
    withClient({ retry: { maxAttempts: 1 } }, (s) =>
      Effect.gen(function* () {
        yield* s.setQuotas({ "*": { analyzeText: { requestsPerSecond: 20, burst: 5 } } })
        const analyze = yield* AnalyzeV1
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 45 }, (_, i) => i),
          (i) => Effect.result(analyze.text({ channelId: CHANNEL, text: `message ${i}` })),
          { concurrency: 16 }
        )
        assert.ok(outcomes.some((o) => o._tag === "Failure" && o.failure._tag === "QuotaError"))
      })
    )
  )
})
