/** What analysing one item came to: a verdict with the exact requests sent, or a recorded failure. */
import { FieldViolation } from "@warden/core"
import { Schema } from "effect"
import { SegmentRecord } from "./ItemVersion.ts"
import { Verdict } from "./Verdict.ts"

/** The item was analysed: its verdict is the most severe segment's. */
export const Analysed = Schema.Struct({
  status: Schema.Literal("analysed"),
  endpoint: Schema.String,
  /** The exact JSON text sent for the most severe segment (what feedback will send back). */
  request: Schema.String,
  response: Schema.String,
  verdict: Verdict,
  segments: Schema.Array(SegmentRecord)
})
/** @see {@link Analysed} */
export type Analysed = typeof Analysed.Type

/** Why an item could not be analysed as it is. */
export const FailedError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  fieldViolations: Schema.optionalKey(Schema.Array(FieldViolation))
})
/** @see {@link FailedError} */
export type FailedError = typeof FailedError.Type

/** The item could not be analysed as it is (bad input): recorded with the reasons, processing goes on. */
export const Failed = Schema.Struct({
  status: Schema.Literal("failed"),
  endpoint: Schema.UndefinedOr(Schema.String),
  request: Schema.UndefinedOr(Schema.String),
  error: FailedError
})
/** @see {@link Failed} */
export type Failed = typeof Failed.Type

/**
 * The API could not be reached for longer than the source's failure-mode delay and the mode is
 * `allow` or `reject`: the item is recorded without a verdict and analysed again when the API is back.
 */
export const Unanalysed = Schema.Struct({
  status: Schema.Literal("unanalysed"),
  endpoint: Schema.Undefined,
  request: Schema.Undefined,
  mode: Schema.Literals(["allow", "reject"])
})
/** @see {@link Unanalysed} */
export type Unanalysed = typeof Unanalysed.Type

/**
 * The API answered, but with none of the fields a verdict is made of (`200 {"foo":1}`): the item is
 * not clean, it was not moderated. Recorded with the exact request and the answer, counted, handled
 * by the source's failure mode (`reject` takes its action; `hold` and `allow` take none) and analysed
 * again when the item comes back or on `warden reanalyse --status unrecognised`.
 */
export const Unrecognised = Schema.Struct({
  status: Schema.Literal("unrecognised"),
  endpoint: Schema.String,
  /** The exact JSON text sent (the first segment whose answer held no verdict). */
  request: Schema.String,
  /** The answer, as JSON text. */
  response: Schema.String,
  /** Its top-level keys (`{foo}`), for the log and the record; never the values. */
  shape: Schema.String
})
/** @see {@link Unrecognised} */
export type Unrecognised = typeof Unrecognised.Type

/** An item outcome. */
export const Outcome = Schema.Union([Analysed, Failed, Unanalysed, Unrecognised])
/** @see {@link Outcome} */
export type Outcome = typeof Outcome.Type

/** The outcome of an item recorded without the API (failure mode `allow` or `reject`). */
export const unanalysed = (mode: "allow" | "reject"): Unanalysed => ({
  status: "unanalysed",
  endpoint: undefined,
  request: undefined,
  mode
})

/** The error recorded for an answer without a verdict (stored with the item, sent to the sinks). */
export const unrecognisedError = (shape: string) => ({
  code: "UNRECOGNISED_ANSWER",
  message: `the API answered ${shape} with none of the fields a verdict is made of (type, severity, recommendedAction, classifications): not moderated`
})
