/**
 * The request body is sent as local validation decoded it when its schema encodes to itself (no
 * second walk of the body to encode it); a schema that transforms anywhere is still encoded.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  ImageAnalyzeRequest,
  ImageAnalyzeResponse,
  TextAnalyzeRequest,
  TextAnalyzeResponse,
  UsernameAnalyzeRequest,
  UsernameAnalyzeResponse
} from "@warden/core/client"
import { Result, Schema, type SchemaAST } from "effect"
import { encodesToItself, violationsOf, withoutOpenRests } from "../src/internal/codec.ts"

/** A valid text request body. */
const body = {
  channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
  text: "hello",
  post: { title: "t" },
  author: { username: "u" }
}

describe("encodesToItself", () => {
  it("holds for core's request bodies: strings and literals with checks", () => {
    for (const schema of [TextAnalyzeRequest, ImageAnalyzeRequest, UsernameAnalyzeRequest])
      assert.isTrue(encodesToItself(schema.ast), String(schema.ast))
  })

  it("fails for a transformation anywhere in the body: a field, an array element, a union member, a suspended schema", () => {
    const transformed = Schema.NumberFromString
    assert.isFalse(encodesToItself(transformed.ast))
    assert.isFalse(encodesToItself(Schema.Struct({ a: Schema.String, b: Schema.optionalKey(transformed) }).ast))
    assert.isFalse(encodesToItself(Schema.Array(Schema.Struct({ n: transformed })).ast))
    assert.isFalse(encodesToItself(Schema.Union([Schema.String, transformed]).ast))
    assert.isFalse(encodesToItself(Schema.Struct({ s: Schema.suspend(() => transformed) }).ast))
    assert.isFalse(encodesToItself(Schema.Struct({ d: Schema.Date }).ast))
    assert.isTrue(
      encodesToItself(Schema.Struct({ n: Schema.Number, tags: Schema.Array(Schema.Literals(["a", "b"])) }).ast)
    )
  })

  it("agrees with encoding: a body that encodes to itself is equal to its encoding", () => {
    assert.deepStrictEqual(Schema.encodeUnknownSync(TextAnalyzeRequest)(body), body)
  })
})

describe("violationsOf", () => {
  const fields = (input: unknown, schema: Schema.Top = TextAnalyzeRequest) => {
    const result = violationsOf(schema, input)
    return Result.isSuccess(result) ? "valid" : result.failure.map((v) => v.field).sort()
  }

  it("returns a valid body as it is", () => {
    const result = violationsOf(TextAnalyzeRequest, body)
    assert.isTrue(Result.isSuccess(result))
    if (Result.isSuccess(result)) assert.deepStrictEqual(result.success, body)
  })

  it("refuses an unknown field at any depth, as the server does", () => {
    assert.deepStrictEqual(fields({ ...body, colour: "red" }), ["colour"])
    assert.deepStrictEqual(fields({ ...body, post: { title: "t", extra: 1 } }), ["post.extra"])
  })

  it("names every violation at once, not only the first", () => {
    assert.deepStrictEqual(fields({ ...body, text: 5, channelId: "nope", author: { username: "u", x: 1 } }), [
      "author.x",
      "channelId",
      "text"
    ])
  })

  it("takes the union member that holds every field, not the first that decodes", () => {
    const Either = Schema.Union([
      Schema.Struct({ a: Schema.String }),
      Schema.Struct({ a: Schema.String, b: Schema.Number })
    ])
    const result = violationsOf(Either, { a: "x", b: 1 })
    assert.isTrue(Result.isSuccess(result))
    if (Result.isSuccess(result)) assert.deepStrictEqual(result.success, { a: "x", b: 1 })
    assert.deepStrictEqual(fields({ a: "x", c: 1 }, Either), ["c"])
  })

  it("checks arrays element by element", () => {
    const Tags = Schema.Struct({ tags: Schema.Array(Schema.Struct({ name: Schema.String })) })
    assert.strictEqual(fields({ tags: [{ name: "a" }, { name: "b" }] }, Tags), "valid")
    assert.deepStrictEqual(fields({ tags: [{ name: "a" }, { name: "b", colour: 1 }] }, Tags), ["tags.1.colour"])
  })
})

describe("withoutOpenRests", () => {
  const openRests = (ast: SchemaAST.AST): number =>
    ast._tag === "Objects"
      ? ast.indexSignatures.length + ast.propertySignatures.reduce((n, p) => n + openRests(p.type), 0)
      : 0
  const answers: ReadonlyArray<unknown> = [
    {},
    { textAnalysis: { severity: "HIGH", classifications: ["INSULT"], extra: { deep: 1 } }, requestId: "r" },
    { imageAnalysis: { ocrAnalysis: { text: "t", textAnalysis: { type: "NEUTRAL", more: [1] } }, other: true } },
    { usernameAnalysis: { recommendedAction: "KEEP" } },
    { textAnalysis: { severity: 5 } },
    { textAnalysis: { classifications: "INSULT" } },
    { textAnalysis: "HIGH" },
    { imageAnalysis: { ocrAnalysis: { textAnalysis: { language: null } } } },
    [],
    null,
    "text"
  ]

  it("leaves no index signature at any depth of the answer schemas", () => {
    for (const schema of [TextAnalyzeResponse, ImageAnalyzeResponse, UsernameAnalyzeResponse]) {
      assert.isAbove(openRests(schema.ast), 0)
      assert.strictEqual(openRests(withoutOpenRests(schema.ast)), 0)
    }
  })

  it("accepts exactly what the answer schemas accept", () => {
    for (const schema of [TextAnalyzeResponse, ImageAnalyzeResponse, UsernameAnalyzeResponse]) {
      const original = Schema.is(schema as unknown as Schema.Codec<unknown, unknown>)
      const guard = Schema.is(Schema.make<Schema.Codec<unknown, unknown>>(withoutOpenRests(schema.ast)))
      for (const answer of answers) assert.strictEqual(guard(answer), original(answer), JSON.stringify(answer))
    }
  })

  it("keeps an index signature that does not take anything", () => {
    const Counts = Schema.Record(Schema.String, Schema.Number)
    const guard = Schema.is(Schema.make<Schema.Codec<unknown, unknown>>(withoutOpenRests(Counts.ast)))
    assert.isTrue(guard({ a: 1 }))
    assert.isFalse(guard({ a: "1" }))
  })
})
