/**
 * The request body is sent as local validation decoded it when its schema encodes to itself (no
 * second walk of the body to encode it); a schema that transforms anywhere is still encoded.
 */
import { assert, describe, it } from "@effect/vitest"
import { ImageAnalyzeRequest, TextAnalyzeRequest, UsernameAnalyzeRequest } from "@warden/core/client"
import { Result, Schema } from "effect"
import { encodesToItself, violationsOf } from "../src/internal/codec.ts"

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
