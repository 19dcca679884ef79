/** The legacy batch client end to end against the in-process sandbox. */
import { assert, describe, it } from "@effect/vitest"
import { Sandbox } from "@warden/sandbox"
import { Transport } from "@warden/transport"
import { Duration, Effect, Layer } from "effect"
import { LegacyBatch } from "../src/LegacyBatch.ts"

const clientOn = (url: string, key = "sandbox-standard-key") =>
  LegacyBatch.layer.pipe(
    Layer.provideMerge(
      Transport.Transport.layerOptions({
        apiKey: key,
        legacyBaseUrl: url,
        retry: { baseDelay: Duration.millis(5), maxDelay: Duration.millis(10) }
      })
    )
  )

describe("LegacyBatch against the sandbox", () => {
  it.live(
    "250 messages with long texts at 0, 99, 100, 249: 3 calls, 246 analyses, 4 local errors at original positions",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.Sandbox
        const long = [0, 99, 100, 249]
        const messages = Array.from({ length: 250 }, (_, i) => ({
          text: long.includes(i)
            ? `${"a".repeat(1000)}!`
            : i % 2 === 0
              ? `you are an idiot ${i}`
              : `have a nice day ${i}`,
          reference: `m-${i}`
        }))
        const result = yield* Effect.flatMap(LegacyBatch, (b) => b.analyzeWithRequests("channel-250", messages)).pipe(
          Effect.provide(clientOn(sandbox.url))
        )
        const calls = (yield* sandbox.requests).filter((r) => r.endpoint === "legacyAnalyze")
        assert.strictEqual(calls.length, 3)
        assert.deepStrictEqual(
          calls.map((c) => JSON.parse(c.body).contents.length).sort((a, b) => b - a),
          [100, 100, 46]
        )
        assert.ok(calls.every((c) => c.status === 200 && c.headers["x-api-key"] === "<redacted>"))
        assert.deepStrictEqual(
          result.errors.map(
            (e): Array<unknown> => [e.status, e.details.position, e.details.limit, e.details.value?.length]
          ),
          long.map((p) => ["TEXT_TOO_LONG", p, 1000, 1001])
        )
        assert.strictEqual(result.data.length, 246)
        const byRef = new Map(result.data.map((d) => [d.reference, d]))
        assert.strictEqual(byRef.get("m-2")?.type, "HATEFUL")
        assert.strictEqual(byRef.get("m-3")?.recommendedAction, "KEEP")
        assert.ok(!byRef.has("m-0") && !byRef.has("m-249"))
        // each chunk's exact request is what the sandbox received
        const bodies = new Set(calls.map((c) => c.body))
        for (const chunk of result.chunks) assert.ok(bodies.has(chunk.request))
      }).pipe(Effect.provide(Sandbox.Sandbox.layer()))
  )

  it.live("a local TEXT_TOO_LONG item is shaped exactly like the one the server gives", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandbox.Sandbox
      // what the server answers for an over-long text (sent raw, bypassing the local check) ...
      const transport = yield* Transport.Transport
      const raw = yield* transport.send({
        endpoint: "legacyAnalyze",
        body: JSON.stringify({ channelUuid: "c", contents: [{ text: "ok" }, { text: "b".repeat(1001) }] })
      })
      const serverError = JSON.parse(raw.body).errors[0]
      // ... equals what LegacyBatch reports for it without sending it
      const local = yield* Effect.flatMap(LegacyBatch, (b) =>
        b.analyze("c", [{ text: "ok" }, { text: "b".repeat(1001) }])
      )
      assert.deepStrictEqual(
        { status: local.errors[0]!.status, details: local.errors[0]!.details },
        { status: serverError.status, details: serverError.details }
      )
      assert.ok(sandbox.url.length > 0)
    }).pipe(
      Effect.provide(
        Layer.unwrap(Effect.map(Sandbox.Sandbox, (s: Sandbox.SandboxShape) => clientOn(s.url))).pipe(
          Layer.provideMerge(Sandbox.Sandbox.layer())
        )
      )
    )
  )

  it.live("a call that fails as a whole (401, 429) is a typed error, not an errors item", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandbox.Sandbox
      const unauthorized = yield* Effect.flatMap(LegacyBatch, (b) =>
        Effect.flip(b.analyze("c", [{ text: "hi" }]))
      ).pipe(Effect.provide(clientOn(sandbox.url, "sandbox-expired-key")))
      assert.strictEqual(unauthorized._tag, "AuthenticationError")
      const quota = yield* Effect.flatMap(LegacyBatch, (b) =>
        Effect.flip(b.analyze("c", [{ text: "[[QUOTA]] hi" }]))
      ).pipe(Effect.provide(clientOn(sandbox.url)))
      assert.strictEqual(quota._tag, "QuotaError")
      const calls = (yield* sandbox.requests).filter((r) => r.endpoint === "legacyAnalyze")
      assert.strictEqual(calls.length, 2)
    }).pipe(Effect.provide(Sandbox.Sandbox.layer()))
  )
})
