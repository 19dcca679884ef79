import { assert, describe, it } from "@effect/vitest"
import { Transport } from "@warden/transport"
import { Effect, Layer } from "effect"
import { LegacyBatch } from "../src/LegacyBatch.ts"
import { envelope, type Recorded, startServer } from "@warden/transport/testing"

/** Answers like the legacy endpoint: a text containing BAD is a per-message error at its position in the call. */
const legacyAnswer = (_: number, request: Recorded) => {
  const body = JSON.parse(request.body) as { contents: Array<{ text: string; reference?: string }> }
  const data: Array<unknown> = []
  const errors: Array<unknown> = []
  body.contents.forEach((m, i) => {
    if (m.text.includes("BAD")) {
      errors.push({ reason: "bad", status: "SOMETHING_ELSE", details: { position: i, value: m.text } })
    } else data.push({ text: m.text, reference: m.reference ?? `gen/${i}`, type: "NEUTRAL" })
  })
  return { status: 200, body: { data, errors } }
}

const layerFor = (url: string, options: Parameters<typeof LegacyBatch.layerOptions>[0] = {}) =>
  LegacyBatch.layerOptions(options).pipe(
    Layer.provideMerge(Transport.Transport.layerOptions({ apiKey: "k", legacyBaseUrl: url, retry: { maxAttempts: 1 } }))
  )

describe("LegacyBatch", () => {
  it.live("splits 250 messages into calls of <= 100, reports long texts locally at their original positions", () =>
    Effect.gen(function* () {
      const server = yield* startServer(legacyAnswer)
      const long = new Set([0, 99, 100, 249])
      const messages = Array.from({ length: 250 }, (_, i) => ({
        text: long.has(i) ? "x".repeat(1001) : i === 150 ? "BAD message" : `message ${i}`,
        reference: `ref-${i}`
      }))
      const result = yield* Effect.flatMap(LegacyBatch, (b) => b.analyzeWithRequests("channel-1", messages)).pipe(
        Effect.provide(layerFor(server.url))
      )
      assert.strictEqual(server.requests.length, 3)
      const sizes = server.requests.map((r) => JSON.parse(r.body).contents.length).sort((a, b) => b - a)
      assert.deepStrictEqual(sizes, [100, 100, 46])
      // long texts never sent
      for (const r of server.requests) assert.ok(!r.body.includes("x".repeat(1001)))
      assert.deepStrictEqual(
        result.errors.map((e) => [e.status, e.details.position]),
        [
          ["TEXT_TOO_LONG", 0],
          ["TEXT_TOO_LONG", 99],
          ["TEXT_TOO_LONG", 100],
          ["SOMETHING_ELSE", 150],
          ["TEXT_TOO_LONG", 249]
        ]
      )
      const tooLong = result.errors[0]!
      assert.strictEqual(tooLong.details.limit, 1000)
      assert.strictEqual(tooLong.details.value, "x".repeat(1001))
      assert.strictEqual(result.data.length, 250 - 5)
      assert.strictEqual(new Set(result.data.map((d) => d.reference)).size, 245)
      // exact request texts and positions per chunk
      for (const chunk of result.chunks) {
        assert.ok(server.requests.some((r) => r.body === chunk.request))
        assert.strictEqual(JSON.parse(chunk.request).contents.length, chunk.positions.length)
      }
      assert.deepStrictEqual(
        result.chunks.flatMap((c) => c.positions),
        Array.from({ length: 250 }, (_, i) => i).filter((i) => !long.has(i))
      )
    }).pipe(Effect.scoped)
  )

  it.live("a malformed message fails the batch with its original position, without any call", () =>
    Effect.gen(function* () {
      const server = yield* startServer(legacyAnswer)
      const messages = [{ text: "ok" }, { text: "ok" }, { reference: "no text" }] as never
      const error = yield* Effect.flatMap(LegacyBatch, (b) => Effect.flip(b.analyze("c", messages))).pipe(
        Effect.provide(layerFor(server.url))
      )
      assert.strictEqual(error._tag, "RequestValidationError")
      assert.deepStrictEqual(error._tag === "RequestValidationError" ? error.fieldViolations.map((v) => v.field) : [], [
        "contents.2.text"
      ])
      assert.strictEqual(server.requests.length, 0)
    }).pipe(Effect.scoped)
  )

  it.live("a call that fails as a whole fails the batch with its typed error", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() =>
        envelope(401, "AUTHENTICATION_ERROR", { authenticationError: { reason: "REASON_INVALID_CREDENTIALS" } })
      )
      const error = yield* Effect.flatMap(LegacyBatch, (b) =>
        Effect.flip(
          b.analyze(
            "c",
            Array.from({ length: 150 }, (_, i) => ({ text: `m${i}` }))
          )
        )
      ).pipe(Effect.provide(layerFor(server.url, { concurrency: 1 })))
      assert.strictEqual(error._tag, "AuthenticationError")
      assert.strictEqual(server.requests.length, 1)
    }).pipe(Effect.scoped)
  )

  it.live("an empty batch makes no call", () =>
    Effect.gen(function* () {
      const server = yield* startServer(legacyAnswer)
      const result = yield* Effect.flatMap(LegacyBatch, (b) => b.analyze("c", [])).pipe(
        Effect.provide(layerFor(server.url))
      )
      assert.deepStrictEqual(result, { data: [], errors: [] })
      assert.strictEqual(server.requests.length, 0)
    }).pipe(Effect.scoped)
  )
})
