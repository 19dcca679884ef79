import { assert, describe, it } from "@effect/vitest"
import { FEEDBACK_INPUTS_MESSAGE } from "@warden/core"
import { type ApiConfig, Transport } from "@warden/transport"
import { recordingTracer } from "@warden/vitest-config/RecordingTracer"
import { Effect, Layer } from "effect"
import { AnalyzeV1 } from "../src/AnalyzeV1.ts"
import { FeedbackV1 } from "../src/FeedbackV1.ts"
import * as V1Client from "../src/V1Client.ts"
import { ok, startServer } from "@warden/transport/testing"

const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const FEEDBACK_ID = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"

const run = <A, E>(input: Omit<ApiConfig.Input, "apiKey">, use: Effect.Effect<A, E, AnalyzeV1 | FeedbackV1>) =>
  use.pipe(Effect.provide(V1Client.layerOptions({ apiKey: "k", ...input })))

describe("AnalyzeV1", () => {
  it.live(
    "sends a valid text request, decodes the answer (unknown fields under raw) and returns the exact body sent",
    () =>
      Effect.gen(function* () {
        const server = yield* startServer(() => ok({ textAnalysis: { type: "HATEFUL", severity: "HIGH", extra: 1 } }))
        const sent = yield* run(
          { baseUrls: { global: server.url } },
          Effect.flatMap(AnalyzeV1, (c) =>
            c.textWithRequest({ channelId: CHANNEL, text: "you are nice", language: "en" })
          )
        )
        assert.strictEqual(sent.response.textAnalysis?.type, "HATEFUL")
        assert.deepStrictEqual(sent.response.raw, { textAnalysis: { type: "HATEFUL", severity: "HIGH", extra: 1 } })
        // raw is not enumerable: persisting the answer does not write it twice
        assert.notInclude(JSON.stringify(sent.response), "raw")
        assert.strictEqual(server.requests[0]!.body, sent.request)
        assert.deepStrictEqual(JSON.parse(sent.request), { channelId: CHANNEL, text: "you are nice", language: "en" })
      }).pipe(Effect.scoped)
  )

  it.live("gives the answer's body text exactly as received beside the decoded answer", () =>
    Effect.gen(function* () {
      // spacing, key order and escapes a re-encode of the decoded answer would not give back
      const body = '{ "textAnalysis" : {"severity":"HIGH", "type":"HATEFUL", "language":"\\u0066r"} }\n'
      const server = yield* startServer(() => ok(body))
      const sent = yield* run(
        { baseUrls: { global: server.url } },
        Effect.flatMap(AnalyzeV1, (c) => c.textWithRequest({ channelId: CHANNEL, text: "salut" }))
      )
      assert.strictEqual(sent.responseText, body)
      assert.strictEqual(sent.response.textAnalysis?.language, "fr")
      assert.notStrictEqual(JSON.stringify(sent.response), body)
    }).pipe(Effect.scoped)
  )

  it.live("refuses an invalid body with every violation and the server's field paths, without a call", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok())
      const error = yield* run(
        { baseUrls: { global: server.url } },
        Effect.flip(
          Effect.flatMap(AnalyzeV1, (c) =>
            c.text({
              channelId: "not-a-uuid",
              text: "x".repeat(10_001),
              post: { title: "t", countryCode: "be" },
              unknownField: 1
            } as never)
          )
        )
      )
      assert.strictEqual(error._tag, "RequestValidationError")
      const fields = error._tag === "RequestValidationError" ? error.fieldViolations.map((v) => v.field).sort() : []
      assert.deepStrictEqual(fields, ["channelId", "post.countryCode", "text", "unknownField"])
      assert.strictEqual(server.requests.length, 0)
    }).pipe(Effect.scoped)
  )

  it.live(
    "refuses reseller-only fields that apply to the endpoint with a standard key, ignores those that do not",
    () =>
      Effect.gen(function* () {
        const server = yield* startServer(() => ok({ usernameAnalysis: {} }))
        const error = yield* run(
          { baseUrls: { global: server.url } },
          Effect.flip(
            Effect.flatMap(AnalyzeV1, (c) =>
              c.username({ channelId: CHANNEL, username: "bob", customerContext: "a forum" })
            )
          )
        )
        assert.strictEqual(error._tag, "RequestValidationError")
        assert.deepStrictEqual(
          error._tag === "RequestValidationError" ? error.fieldViolations.map((v) => v.field) : [],
          ["customerContext"]
        )
        // ocrEnabled does not apply to username: passed through (image/username keep unknown fields)
        yield* run(
          { baseUrls: { global: server.url } },
          Effect.flatMap(AnalyzeV1, (c) =>
            c.username({ channelId: CHANNEL, username: "bob", ocrEnabled: true } as never)
          )
        )
        assert.strictEqual(server.requests.length, 1)
      }).pipe(Effect.scoped)
  )

  it.live("sends reseller fields with a reseller key", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok({ imageAnalysis: { classifications: ["WEAPONS"] } }))
      const response = yield* run(
        { baseUrls: { global: server.url }, keyKind: "reseller" },
        Effect.flatMap(AnalyzeV1, (c) =>
          c.image({
            channelId: CHANNEL,
            imageUrl: "https://img.example/a.png",
            ocrEnabled: true,
            industry: "INDUSTRY_GAMING"
          })
        )
      )
      assert.deepStrictEqual(response.imageAnalysis?.classifications, ["WEAPONS"])
      assert.strictEqual(JSON.parse(server.requests[0]!.body).ocrEnabled, true)
    }).pipe(Effect.scoped)
  )

  it.live(
    "an answer that breaks the response schema is a ResponseDecodeError with the raw body, request id and attempts",
    () =>
      Effect.gen(function* () {
        const server = yield* startServer(() => ({ status: 200, body: '{"textAnalysis":"oops"}' }))
        const error = yield* run(
          { baseUrls: { global: server.url } },
          Effect.flip(Effect.flatMap(AnalyzeV1, (c) => c.text({ channelId: CHANNEL, text: "hi" })))
        )
        assert.strictEqual(error._tag, "ResponseDecodeError")
        if (error._tag !== "ResponseDecodeError") return
        assert.strictEqual(error.body, '{"textAnalysis":"oops"}')
        // the call's facts travel with it: the id the server saw, one attempt
        assert.strictEqual(error.requestId, server.requests[0]!.headers["x-request-id"])
        assert.strictEqual(error.attempts, 1)
      }).pipe(Effect.scoped)
  )

  it.live("layer makes one span per call, with the call's attributes; layerUntraced none, with the same answer", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok({ textAnalysis: { type: "HATEFUL" } }))
      const { spans, tracer } = recordingTracer()
      const analyze = (layer: Layer.Layer<AnalyzeV1, never, Transport.Transport>) =>
        Effect.flatMap(AnalyzeV1, (c) => c.text({ channelId: CHANNEL, text: "hi" })).pipe(
          Effect.provide(
            layer.pipe(
              Layer.provide(Transport.Transport.layerOptions({ apiKey: "k", baseUrls: { global: server.url } }))
            )
          ),
          Effect.withTracer(tracer)
        )
      const traced = yield* analyze(AnalyzeV1.layer)
      assert.deepStrictEqual(
        spans.map((s) => s.name),
        ["AnalyzeV1.text"]
      )
      assert.strictEqual(spans[0]!.attributes.get("warden.endpoint"), "analyzeText")
      assert.strictEqual(spans[0]!.attributes.get("warden.attempts"), 1)
      const untraced = yield* analyze(AnalyzeV1.layerUntraced)
      assert.lengthOf(spans, 1)
      assert.deepStrictEqual(untraced.raw, traced.raw)
      assert.strictEqual(server.requests.length, 2)
    }).pipe(Effect.scoped)
  )
})

describe("FeedbackV1", () => {
  const original = '{ "text": "you idiot",\n  "channelId": "' + CHANNEL + '", "language":"en" }'

  it.live("splices analyzeRequest into the body byte-for-byte, from a string or from bytes", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok({ id: FEEDBACK_ID }))
      const [fromString, fromBytes] = yield* run(
        { baseUrls: { global: server.url } },
        Effect.flatMap(FeedbackV1, (c) =>
          Effect.all([
            c.textWithRequest({ analyzeRequest: original, classificationsToRemove: ["INSULT"], confidence: "HIGH" }),
            c.text({ analyzeRequest: new TextEncoder().encode(original), notes: "fine" })
          ])
        )
      )
      assert.strictEqual(fromString.response.id, FEEDBACK_ID)
      assert.strictEqual(fromBytes.id, FEEDBACK_ID)
      const first = server.requests[0]!.body
      assert.strictEqual(
        first,
        `{"analyzeRequest":${original},"classificationsToRemove":["INSULT"],"confidence":"HIGH"}`
      )
      assert.strictEqual(first, fromString.request)
      assert.ok(server.requests[1]!.body.startsWith(`{"analyzeRequest":${original},`))
      assert.strictEqual(server.requests[0]!.url, "/feedback/v1/text")
    }).pipe(Effect.scoped)
  )

  it.live("refuses a feedback with none of the three inputs, and an invalid analyzeRequest, without a call", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok({ id: FEEDBACK_ID }))
      const [none, invalid, notJson] = yield* run(
        { baseUrls: { global: server.url } },
        Effect.flatMap(FeedbackV1, (c) =>
          Effect.all([
            Effect.flip(c.text({ analyzeRequest: original, confidence: "LOW" })),
            Effect.flip(c.text({ analyzeRequest: '{"channelId":"nope","text":"x"}', notes: "n" })),
            Effect.flip(c.text({ analyzeRequest: "{not json", notes: "n" }))
          ])
        )
      )
      assert.deepStrictEqual(none._tag === "RequestValidationError" ? none.fieldViolations : [], [
        { field: "", message: FEEDBACK_INPUTS_MESSAGE }
      ])
      assert.deepStrictEqual(
        invalid._tag === "RequestValidationError" ? invalid.fieldViolations.map((v) => v.field) : [],
        ["analyzeRequest.channelId"]
      )
      assert.deepStrictEqual(
        notJson._tag === "RequestValidationError" ? notJson.fieldViolations.map((v) => v.field) : [],
        ["analyzeRequest"]
      )
      assert.strictEqual(server.requests.length, 0)
    }).pipe(Effect.scoped)
  )

  it.live("sends the image OCR flag under its configured wire name", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok({ id: FEEDBACK_ID }))
      const image = `{"channelId":"${CHANNEL}","imageUrl":"https://img.example/x.png"}`
      yield* run(
        { baseUrls: { global: server.url } },
        Effect.flatMap(FeedbackV1, (c) =>
          c.image({ analyzeRequest: image, classificationsToAdd: ["WEAPONS"], ocrIssue: true })
        )
      )
      assert.strictEqual(
        server.requests[0]!.body,
        `{"analyzeRequest":${image},"classificationsToAdd":["WEAPONS"],"ocrIssue":true}`
      )
      assert.strictEqual(server.requests[0]!.url, "/feedback/v1/image")
    }).pipe(Effect.scoped)
  )
})
