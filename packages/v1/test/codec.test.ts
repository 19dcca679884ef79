/**
 * The request body is sent as local validation decoded it when its schema encodes to itself (no
 * second walk of the body to encode it); a schema that transforms anywhere is still encoded.
 */
import { assert, describe, it } from "@effect/vitest"
import { ImageAnalyzeRequest, TextAnalyzeRequest, UsernameAnalyzeRequest } from "@warden/core/client"
import { Schema } from "effect"
import { encodesToItself } from "../src/internal/codec.ts"

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
    const body = {
      channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
      text: "hello",
      post: { title: "t" },
      author: { username: "u" }
    }
    assert.deepStrictEqual(Schema.encodeUnknownSync(TextAnalyzeRequest)(body), body)
  })
})
