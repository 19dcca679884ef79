/** What analysing one item came to: a verdict with the exact requests sent, or a recorded failure. */
import type { FieldViolation } from "@warden/core"
import type { SegmentRecord } from "../state/StateStore.ts"
import type { Verdict } from "./Verdict.ts"

/** The item was analysed: its verdict is the most severe segment's. */
export interface Analysed {
  readonly status: "analysed"
  readonly endpoint: string
  /** The exact JSON text sent for the most severe segment (what feedback will send back). */
  readonly request: string
  readonly response: string
  readonly verdict: Verdict
  readonly segments: ReadonlyArray<SegmentRecord>
}

/** The item could not be analysed as it is (bad input): recorded with the reasons, processing goes on. */
export interface Failed {
  readonly status: "failed"
  readonly endpoint: string | undefined
  readonly request: string | undefined
  readonly error: {
    readonly code: string
    readonly message: string
    readonly fieldViolations?: ReadonlyArray<FieldViolation>
  }
}

/**
 * The API could not be reached for longer than the source's failure-mode delay and the mode is
 * `allow` or `reject`: the item is recorded without a verdict and analysed again when the API is back.
 */
export interface Unanalysed {
  readonly status: "unanalysed"
  readonly endpoint: undefined
  readonly request: undefined
  readonly mode: "allow" | "reject"
}

/**
 * The API answered, but with none of the fields a verdict is made of (`200 {"foo":1}`): the item is
 * not clean, it was not moderated. Recorded with the exact request and the answer, counted, handled
 * by the source's failure mode (`reject` takes its action; `hold` and `allow` take none) and analysed
 * again when the item comes back or on `warden reanalyse --status unrecognised`.
 */
export interface Unrecognised {
  readonly status: "unrecognised"
  readonly endpoint: string
  /** The exact JSON text sent (the first segment whose answer held no verdict). */
  readonly request: string
  /** The answer, as JSON text. */
  readonly response: string
  /** Its top-level keys (`{foo}`), for the log and the record; never the values. */
  readonly shape: string
}

/** An item outcome. */
export type Outcome = Analysed | Failed | Unanalysed | Unrecognised
