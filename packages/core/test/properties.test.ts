import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import {
  FieldViolations,
  hasFeedbackInput,
  ImageAnalyzeRequest,
  ImageFeedbackRequest,
  LegacyAnalyzeRequest,
  TextAnalyzeRequest,
  TextFeedbackRequest,
  UsernameAnalyzeRequest
} from "../src/index.ts"

const strict = { errors: "all", onExcessProperty: "error" } as const

/** Decodes, returning the violations (empty when valid). */
const violations = (schema: Schema.Top, input: unknown) => {
  const result = Schema.decodeUnknownExit(schema as Schema.Codec<unknown>)(input, strict)
  if (result._tag === "Success") return []
  const error = result.cause.reasons[0]
  assert.ok(error && error._tag === "Fail" && Schema.isSchemaError(error.error), "a SchemaError")
  return FieldViolations.fromSchemaError(error.error as Schema.SchemaError)
}

/**
 * Valid feedback bodies. Derivation filters on the struct-level "at least one input" check, and at the
 * small sizes a check starts with every optional key is left out, so every sample is discarded: derive
 * from the fields and add `notes` (valid alone) to a body that has none of the three inputs.
 */
const feedbackArbitrary = <S extends typeof TextFeedbackRequest | typeof ImageFeedbackRequest>(schema: S) =>
  Arbitrary.schema(Schema.Struct(schema.fields)).pipe(
    Arbitrary.map((body) => (hasFeedbackInput(body) ? body : { ...body, notes: "generated" }))
  ) as unknown as Arbitrary.Arbitrary<S["Type"]>
const textFeedback = feedbackArbitrary(TextFeedbackRequest)
const imageFeedback = feedbackArbitrary(ImageFeedbackRequest)

/**
 * Encodes, sends through JSON, decodes, and compares. Image and username requests keep unknown fields
 * of any value, and a generated unknown value need not survive JSON (-0, NaN): those skip the JSON step.
 */
const roundTrips =
  (schema: Schema.Codec<any, any>, throughJson = true) =>
  (value: unknown) => {
    const encoded = Schema.encodeUnknownSync(schema)(value)
    const wire = throughJson ? JSON.parse(JSON.stringify(encoded)) : encoded
    assert.deepStrictEqual(Schema.decodeUnknownSync(schema)(wire, strict), value)
  }

/** Runs a property over an arbitrary, failing the test with the shrunk counter-example. */
const property = <A>(name: string, arbitrary: Arbitrary.Arbitrary<A>, check: (value: A) => void) =>
  it.effect(name, () =>
    Effect.gen(function* () {
      const result = yield* Arbitrary.checkEffect(arbitrary, (value) => {
        check(value)
        return true
      })
      assert.strictEqual(result._tag, "Passed", Arbitrary.formatCheckFailure(result))
    })
  )

describe("every valid value round-trips encode -> JSON -> decode", () => {
  it.prop("TextAnalyzeRequest", { value: TextAnalyzeRequest }, ({ value }) => roundTrips(TextAnalyzeRequest)(value))
  it.prop("ImageAnalyzeRequest", { value: ImageAnalyzeRequest }, ({ value }) =>
    roundTrips(ImageAnalyzeRequest, false)(value)
  )
  it.prop("UsernameAnalyzeRequest", { value: UsernameAnalyzeRequest }, ({ value }) =>
    roundTrips(UsernameAnalyzeRequest, false)(value)
  )
  property("TextFeedbackRequest", textFeedback, roundTrips(TextFeedbackRequest))
  property("ImageFeedbackRequest", imageFeedback, roundTrips(ImageFeedbackRequest, false))
  it.prop("LegacyAnalyzeRequest", { value: LegacyAnalyzeRequest }, ({ value }) =>
    roundTrips(LegacyAnalyzeRequest)(value)
  )
})

/** A mutation that breaks exactly one rule, and the field path the violation must name. */
interface Mutation<A> {
  readonly field: string
  readonly apply: (value: A) => unknown
}

const textMutations: ReadonlyArray<Mutation<TextAnalyzeRequest>> = [
  { field: "channelId", apply: (v) => ({ ...v, channelId: "not-a-uuid" }) },
  { field: "text", apply: (v) => ({ ...v, text: "x".repeat(10_001) }) },
  { field: "reference", apply: (v) => ({ ...v, reference: "r".repeat(257) }) },
  { field: "language", apply: (v) => ({ ...v, language: "eng" }) },
  { field: "publishedAt", apply: (v) => ({ ...v, publishedAt: "2024-13-45" }) },
  { field: "permalink", apply: (v) => ({ ...v, permalink: "not a uri" }) },
  { field: "post.title", apply: (v) => ({ ...v, post: { title: "t".repeat(2049) } }) },
  { field: "post.countryCode", apply: (v) => ({ ...v, post: { title: "t", countryCode: "be" } }) },
  { field: "author.username", apply: (v) => ({ ...v, author: { username: "u".repeat(256) } }) },
  { field: "author.reference", apply: (v) => ({ ...v, author: { username: "u", reference: "r".repeat(257) } }) },
  { field: "author.countryCode", apply: (v) => ({ ...v, author: { username: "u", countryCode: "BEL" } }) },
  { field: "industry", apply: (v) => ({ ...v, industry: "INDUSTRY_UNKNOWN" }) }
]

describe("a mutation that breaks one rule fails with that rule's field path", () => {
  textMutations.forEach((mutation) => {
    it.prop(`TextAnalyzeRequest: ${mutation.field}`, { value: TextAnalyzeRequest }, ({ value }) => {
      assert.deepStrictEqual(
        violations(TextAnalyzeRequest, mutation.apply(value)).map((v) => v.field),
        [mutation.field]
      )
    })
  })

  property("TextFeedbackRequest: analyzeRequest.channelId", textFeedback, (value) => {
    const broken = { ...value, analyzeRequest: { ...value.analyzeRequest, channelId: "nope" } }
    assert.deepStrictEqual(
      violations(TextFeedbackRequest, broken).map((v) => v.field),
      ["analyzeRequest.channelId"]
    )
  })

  property("TextFeedbackRequest: confidence", textFeedback, (value) => {
    assert.deepStrictEqual(
      violations(TextFeedbackRequest, { ...value, confidence: "EXTREME" }).map((v) => v.field),
      ["confidence"]
    )
  })

  it.prop("LegacyAnalyzeRequest: contents over 100", { value: LegacyAnalyzeRequest }, ({ value }) => {
    const contents = Array.from(
      { length: 101 },
      (_, i) =>
        value.contents[i % Math.max(1, value.contents.length)] ?? {
          text: "x"
        }
    )
    assert.deepStrictEqual(
      violations(LegacyAnalyzeRequest, { ...value, contents }).map((v) => v.field),
      ["contents"]
    )
  })
})
