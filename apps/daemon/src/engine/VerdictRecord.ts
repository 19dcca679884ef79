/**
 * What every sink receives for an item version: enough to act on and to be idempotent
 * (`source` + `reference` + `version` identify it), never the API key, and the content text only
 * when the operator opted in (`log.content`).
 */
import type { Outcome } from "./Outcome.ts"
import type { Verdict } from "./Verdict.ts"

/** A verdict as the sinks see it. */
export interface VerdictRecord {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly status: "analysed" | "failed" | "unanalysed" | "unrecognised"
  readonly contentType: string
  readonly mode: "v1" | "legacy"
  readonly verdict?: Verdict
  readonly error?: { readonly code: string; readonly message: string }
  readonly permalink?: string
  readonly text?: string
  readonly segments: number
  readonly analysedAt: string
  readonly dryRun: boolean
  /** The rule that matched, if any. */
  readonly rule?: string
  /** The actions decided (run, or only recorded in a dry run). */
  readonly actions?: ReadonlyArray<string>
}

/** The error recorded for an answer without a verdict (stored with the item, sent to the sinks). */
export const unrecognisedError = (shape: string) => ({
  code: "UNRECOGNISED_ANSWER",
  message: `the API answered ${shape} with none of the fields a verdict is made of (type, severity, recommendedAction, classifications): not moderated`
})

/** Builds the record of an outcome. */
export const fromOutcome = (fields: {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly contentType: string
  readonly mode: "v1" | "legacy"
  readonly outcome: Outcome
  readonly permalink: string | undefined
  readonly text: string | undefined
  readonly analysedAt: string
  readonly dryRun: boolean
  readonly rule: string | undefined
  readonly actions: ReadonlyArray<string>
}): VerdictRecord => ({
  source: fields.source,
  reference: fields.reference,
  version: fields.version,
  status: fields.outcome.status,
  contentType: fields.contentType,
  mode: fields.mode,
  ...(fields.outcome.status === "analysed"
    ? { verdict: fields.outcome.verdict }
    : fields.outcome.status === "failed"
      ? { error: { code: fields.outcome.error.code, message: fields.outcome.error.message } }
      : fields.outcome.status === "unrecognised"
        ? { error: unrecognisedError(fields.outcome.shape) }
        : {
            error: {
              code: "UNANALYSED",
              message: `the API could not be reached; failure mode ${fields.outcome.mode} (analysed when it is back)`
            }
          }),
  ...(fields.permalink === undefined ? {} : { permalink: fields.permalink }),
  ...(fields.text === undefined ? {} : { text: fields.text }),
  segments: fields.outcome.status === "analysed" ? fields.outcome.segments.length : 0,
  analysedAt: fields.analysedAt,
  dryRun: fields.dryRun,
  ...(fields.rule === undefined ? {} : { rule: fields.rule }),
  ...(fields.actions.length === 0 ? {} : { actions: fields.actions })
})
