/** "Characters" in the API's limits are Unicode code points (docs/ASSUMPTIONS.md), counted one way everywhere. */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Characters, LegacyMessage, legacyTextError, TextAnalyzeRequest } from "../src/index.ts"

const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const accepts = (schema: Schema.Top, value: unknown) =>
  Schema.decodeUnknownResult(schema as Schema.Codec<unknown>)(value)._tag === "Success"

describe("Characters", () => {
  it("counts code points: an emoji is one character, not two UTF-16 units", () => {
    expect(Characters.count("😀")).toBe(1)
    expect(Characters.count("a😀b")).toBe(3)
    expect(Characters.count("é")).toBe(1)
    // a lone surrogate is one character
    expect(Characters.count("\ud83d")).toBe(1)
  })

  it("take never cuts a surrogate pair", () => {
    expect(Characters.take("😀😀😀", 2)).toBe("😀😀")
    expect(Characters.take("ab", 5)).toBe("ab")
  })

  it("the client's text limit counts code points: 10,000 emoji accepted, 10,001 refused", () => {
    expect(accepts(TextAnalyzeRequest, { channelId: CHANNEL, text: "😀".repeat(10_000) })).toBe(true)
    expect(accepts(TextAnalyzeRequest, { channelId: CHANNEL, text: "😀".repeat(10_001) })).toBe(false)
  })

  it("the legacy limit counts code points too, in the strict schema and the TEXT_TOO_LONG item", () => {
    expect(accepts(LegacyMessage, { text: "😀".repeat(1000) })).toBe(true)
    expect(accepts(LegacyMessage, { text: "😀".repeat(1001) })).toBe(false)
    expect(legacyTextError("😀".repeat(1000), 0)).toBeUndefined()
    expect(legacyTextError("😀".repeat(1001), 0)?.reason).toBe("text is 1001 characters long; the limit is 1000")
  })
})
