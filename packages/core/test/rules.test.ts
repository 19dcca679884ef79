import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import {
  FeedbackResponse,
  FieldViolations,
  ImageAnalyzeRequest,
  ImageAnalysis,
  ImageFeedbackRequest,
  LegacyAnalyzeRequest,
  LegacyAnalyzeResponse,
  LegacyMessage,
  legacyTextError,
  TextAnalysis,
  TextAnalyzeRequest,
  TextFeedbackRequest,
  UsernameAnalyzeRequest
} from "../src/index.ts"

const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const text = { channelId: CHANNEL, text: "hello" }
const strict = { errors: "all", onExcessProperty: "error" } as const

const check = (schema: Schema.Top, input: unknown) => {
  const result = Schema.decodeUnknownExit(schema as Schema.Codec<unknown>)(input, strict)
  if (result._tag === "Success") return []
  const failure = result.cause.reasons[0]
  if (failure?._tag !== "Fail") throw new Error("expected a failure")
  return FieldViolations.fromSchemaError(failure.error as Schema.SchemaError)
}

/** Each rule of the spec: an accepted example and a rejected one with the field it must name. */
const rules: ReadonlyArray<{
  readonly rule: string
  readonly schema: Schema.Top
  readonly accepted: unknown
  readonly rejected: unknown
  readonly field: string
}> = [
  {
    rule: "channelId is a uuid",
    schema: TextAnalyzeRequest,
    accepted: text,
    rejected: { ...text, channelId: "abc" },
    field: "channelId"
  },
  {
    rule: "channelId is required",
    schema: TextAnalyzeRequest,
    accepted: text,
    rejected: { text: "x" },
    field: "channelId"
  },
  {
    rule: "text is required",
    schema: TextAnalyzeRequest,
    accepted: text,
    rejected: { channelId: CHANNEL },
    field: "text"
  },
  {
    rule: "text <= 10000",
    schema: TextAnalyzeRequest,
    accepted: { ...text, text: "a".repeat(10_000) },
    rejected: { ...text, text: "a".repeat(10_001) },
    field: "text"
  },
  {
    rule: "reference <= 256",
    schema: TextAnalyzeRequest,
    accepted: { ...text, reference: "r".repeat(256) },
    rejected: { ...text, reference: "r".repeat(257) },
    field: "reference"
  },
  {
    rule: "publishedAt is ISO 8601",
    schema: TextAnalyzeRequest,
    accepted: { ...text, publishedAt: "2024-05-01T12:30:00.123+02:00" },
    rejected: { ...text, publishedAt: "01/05/2024" },
    field: "publishedAt"
  },
  {
    rule: "publishedAt needs a zone",
    schema: TextAnalyzeRequest,
    accepted: { ...text, publishedAt: "2024-05-01T12:30:00Z" },
    rejected: { ...text, publishedAt: "2024-05-01T12:30:00" },
    field: "publishedAt"
  },
  {
    rule: "permalink is a uri",
    schema: TextAnalyzeRequest,
    accepted: { ...text, permalink: "https://example.com/p/1" },
    rejected: { ...text, permalink: "/p/1" },
    field: "permalink"
  },
  {
    rule: "language is exactly 2 characters",
    schema: TextAnalyzeRequest,
    accepted: { ...text, language: "fr" },
    rejected: { ...text, language: "f" },
    field: "language"
  },
  {
    rule: "post.title is required",
    schema: TextAnalyzeRequest,
    accepted: { ...text, post: { title: "T" } },
    rejected: { ...text, post: { reference: "p" } },
    field: "post.title"
  },
  {
    rule: "post.title <= 2048",
    schema: TextAnalyzeRequest,
    accepted: { ...text, post: { title: "t".repeat(2048) } },
    rejected: { ...text, post: { title: "t".repeat(2049) } },
    field: "post.title"
  },
  {
    rule: "post.reference <= 256",
    schema: TextAnalyzeRequest,
    accepted: { ...text, post: { title: "T", reference: "r".repeat(256) } },
    rejected: { ...text, post: { title: "T", reference: "r".repeat(257) } },
    field: "post.reference"
  },
  {
    rule: "post.countryCode is 2 uppercase letters",
    schema: TextAnalyzeRequest,
    accepted: { ...text, post: { title: "T", countryCode: "BE" } },
    rejected: { ...text, post: { title: "T", countryCode: "be" } },
    field: "post.countryCode"
  },
  {
    rule: "post.permalink is a uri",
    schema: TextAnalyzeRequest,
    accepted: { ...text, post: { title: "T", permalink: "https://e.x/1" } },
    rejected: { ...text, post: { title: "T", permalink: "e.x/1" } },
    field: "post.permalink"
  },
  {
    rule: "author.username is required",
    schema: TextAnalyzeRequest,
    accepted: { ...text, author: { username: "u" } },
    rejected: { ...text, author: {} },
    field: "author.username"
  },
  {
    rule: "author.username <= 255",
    schema: TextAnalyzeRequest,
    accepted: { ...text, author: { username: "u".repeat(255) } },
    rejected: { ...text, author: { username: "u".repeat(256) } },
    field: "author.username"
  },
  {
    rule: "author.reference <= 256",
    schema: TextAnalyzeRequest,
    accepted: { ...text, author: { username: "u", reference: "r".repeat(256) } },
    rejected: { ...text, author: { username: "u", reference: "r".repeat(257) } },
    field: "author.reference"
  },
  {
    rule: "author.countryCode is 2 uppercase letters",
    schema: TextAnalyzeRequest,
    accepted: { ...text, author: { username: "u", countryCode: "US" } },
    rejected: { ...text, author: { username: "u", countryCode: "USA" } },
    field: "author.countryCode"
  },
  {
    rule: "author.profilePictureUrl is a uri",
    schema: TextAnalyzeRequest,
    accepted: { ...text, author: { username: "u", profilePictureUrl: "https://cdn.example/a.png" } },
    rejected: { ...text, author: { username: "u", profilePictureUrl: "a.png" } },
    field: "author.profilePictureUrl"
  },
  {
    rule: "unknown text fields are refused",
    schema: TextAnalyzeRequest,
    accepted: text,
    rejected: { ...text, chanelId: CHANNEL },
    field: "chanelId"
  },
  {
    rule: "industry is a known industry",
    schema: TextAnalyzeRequest,
    accepted: { ...text, industry: "INDUSTRY_GAMING" },
    rejected: { ...text, industry: "GAMING" },
    field: "industry"
  },
  {
    rule: "image: imageUrl is a URL",
    schema: ImageAnalyzeRequest,
    accepted: { channelId: CHANNEL, imageUrl: "https://img.example/a.png" },
    rejected: { channelId: CHANNEL, imageUrl: "a.png" },
    field: "imageUrl"
  },
  {
    rule: "image: imageData is base64",
    schema: ImageAnalyzeRequest,
    accepted: { channelId: CHANNEL, imageData: "iVBORw0KGgo=" },
    rejected: { channelId: CHANNEL, imageData: "not base64!" },
    field: "imageData"
  },
  {
    rule: "image: one of imageUrl/imageData",
    schema: ImageAnalyzeRequest,
    accepted: { channelId: CHANNEL, imageData: "AAAA" },
    rejected: { channelId: CHANNEL },
    field: ""
  },
  {
    rule: "image: not both",
    schema: ImageAnalyzeRequest,
    accepted: { channelId: CHANNEL, imageUrl: "https://img.example/a.png" },
    rejected: { channelId: CHANNEL, imageUrl: "https://img.example/a.png", imageData: "AAAA" },
    field: "imageData"
  },
  {
    rule: "image: classificationsEnabled are upper-case names",
    schema: ImageAnalyzeRequest,
    accepted: { channelId: CHANNEL, imageData: "AAAA", classificationsEnabled: ["WEAPONS", "SOMETHING_NEW"] },
    rejected: { channelId: CHANNEL, imageData: "AAAA", classificationsEnabled: ["weapons"] },
    field: "classificationsEnabled.0"
  },
  {
    rule: "username: channelId is a uuid",
    schema: UsernameAnalyzeRequest,
    accepted: { channelId: CHANNEL, username: "bob" },
    rejected: { channelId: "1", username: "bob" },
    field: "channelId"
  },
  {
    rule: "feedback: notes alone is valid",
    schema: TextFeedbackRequest,
    accepted: { analyzeRequest: text, notes: "wrong" },
    rejected: { analyzeRequest: text },
    field: ""
  },
  {
    rule: "feedback: classificationsToAdd alone is valid",
    schema: TextFeedbackRequest,
    accepted: { analyzeRequest: text, classificationsToAdd: ["THREAT"] },
    rejected: { analyzeRequest: text, confidence: "HIGH" },
    field: ""
  },
  {
    rule: "feedback: confidence enum",
    schema: TextFeedbackRequest,
    accepted: { analyzeRequest: text, notes: "n", confidence: "VERY_HIGH" },
    rejected: { analyzeRequest: text, notes: "n", confidence: "very high" },
    field: "confidence"
  },
  {
    rule: "feedback: analyzeRequest is validated",
    schema: TextFeedbackRequest,
    accepted: { analyzeRequest: text, notes: "n" },
    rejected: { analyzeRequest: { ...text, language: "english" }, notes: "n" },
    field: "analyzeRequest.language"
  },
  {
    rule: "image feedback: analyzeRequest is an image request",
    schema: ImageFeedbackRequest,
    accepted: { analyzeRequest: { channelId: CHANNEL, imageData: "AAAA" }, classificationsToRemove: ["NUDITY"] },
    rejected: { analyzeRequest: text, classificationsToRemove: ["NUDITY"] },
    field: "analyzeRequest"
  },
  {
    rule: "feedback response: id is a uuid",
    schema: FeedbackResponse,
    accepted: { id: CHANNEL },
    rejected: { id: "1" },
    field: "id"
  },
  {
    rule: "legacy: <= 100 messages",
    schema: LegacyAnalyzeRequest,
    accepted: { channelUuid: "c", contents: Array(100).fill({ text: "x" }) },
    rejected: { channelUuid: "c", contents: Array(101).fill({ text: "x" }) },
    field: "contents"
  },
  {
    rule: "legacy: text is required",
    schema: LegacyAnalyzeRequest,
    accepted: { channelUuid: "c", contents: [{ text: "x" }] },
    rejected: { channelUuid: "c", contents: [{ text: "x" }, { reference: "r" }] },
    field: "contents.1.text"
  },
  {
    rule: "legacy message (strict): text <= 1000",
    schema: LegacyMessage,
    accepted: { text: "a".repeat(1000) },
    rejected: { text: "a".repeat(1001) },
    field: "text"
  }
]

describe("every rule of the spec accepts a valid example and names the field of an invalid one", () => {
  it.each(rules)("$rule", ({ schema, accepted, rejected, field }) => {
    expect(check(schema, accepted)).toEqual([])
    const violations = check(schema, rejected)
    expect(violations.map((v) => v.field)).toContain(field)
    for (const v of violations) expect(v.message.length).toBeGreaterThan(3)
  })
})

describe("legacy over-long texts are per-message errors, not a failed call", () => {
  it("the wire schema accepts a 1001-character text", () => {
    expect(check(LegacyAnalyzeRequest, { channelUuid: "c", contents: [{ text: "a".repeat(1001) }] })).toEqual([])
  })
  it("legacyTextError shapes the server's TEXT_TOO_LONG item", () => {
    expect(legacyTextError("a".repeat(1000), 0)).toBeUndefined()
    expect(legacyTextError("a".repeat(1001), 7)).toMatchObject({
      status: "TEXT_TOO_LONG",
      details: { position: 7, limit: 1000, value: "a".repeat(1001) }
    })
  })
})

describe("responses decode leniently", () => {
  it("keeps unknown fields and unknown enum values", () => {
    const decoded = Schema.decodeUnknownSync(TextAnalysis)({
      type: "SOMETHING_NEW",
      severity: "CATASTROPHIC",
      classifications: ["NEW_CLASS"],
      score: 0.97
    })
    expect(decoded).toEqual({
      type: "SOMETHING_NEW",
      severity: "CATASTROPHIC",
      classifications: ["NEW_CLASS"],
      score: 0.97
    })
  })
  it("accepts an empty record for the shapes the spec does not show", () => {
    expect(Schema.decodeUnknownSync(ImageAnalysis)({})).toEqual({})
  })
  it("decodes the legacy response of the spec", () => {
    const body = {
      data: [
        {
          text: "you idiot",
          reference: "ref/0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
          type: "HATEFUL",
          severity: "HIGH",
          recommendedAction: "REMOVE",
          meta: { directedAt: "SINGLE_PERSON", classifications: ["INSULT"] },
          language: "en",
          analyzedAt: "2024-05-01T12:30:00Z"
        }
      ],
      errors: [
        { reason: "too long", status: "TEXT_TOO_LONG", details: { position: 1, limit: 1000, value: "..." } },
        { reason: "other", status: "SOME_NEW_STATUS", details: { position: 2 } }
      ]
    }
    expect(Schema.decodeUnknownSync(LegacyAnalyzeResponse)(body)).toEqual(body)
  })
})
