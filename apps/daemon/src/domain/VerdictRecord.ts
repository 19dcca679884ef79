/**
 * What every sink receives for an item version: enough to act on and to be idempotent
 * (`source` + `reference` + `version` identify it), never the API key, and the content text only
 * when the operator opted in (`log.content`).
 */
import { Schema } from "effect"
import { ItemStatus, Mode } from "./ItemVersion.ts"
import { type Outcome, unrecognisedError } from "./Outcome.ts"
import { Verdict } from "./Verdict.ts"

/** A verdict as the sinks see it. */
export const VerdictRecord = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Schema.Number,
  status: ItemStatus,
  contentType: Schema.String,
  mode: Mode,
  verdict: Schema.optionalKey(Verdict),
  error: Schema.optionalKey(Schema.Struct({ code: Schema.String, message: Schema.String })),
  permalink: Schema.optionalKey(Schema.String),
  text: Schema.optionalKey(Schema.String),
  segments: Schema.Number,
  analysedAt: Schema.String,
  dryRun: Schema.Boolean,
  /** The rule that matched, if any. */
  rule: Schema.optionalKey(Schema.String),
  /** The actions decided (run, or only recorded in a dry run). */
  actions: Schema.optionalKey(Schema.Array(Schema.String))
})
/** @see {@link VerdictRecord} */
export type VerdictRecord = typeof VerdictRecord.Type

/** Builds the record of an outcome. */
export const fromOutcome = (fields: {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly contentType: string
  readonly mode: Mode
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
