/**
 * The legacy batch endpoint `POST {legacy_base_url}/api/analyze`: up to 100 messages per call;
 * answered 200 with per-message `data` and `errors` even when some messages fail (spec rule 4).
 *
 * A message text over 1000 characters is a per-message `TEXT_TOO_LONG` error, not a failed call:
 * so the wire schema of the request (`LegacyAnalyzeRequest`) accepts any text length, and the 1000
 * limit lives in `LegacyMessage` (the strict form a client checks locally) and `legacyTextError`.
 */
import * as Schema from "effect/Schema"
import { typed } from "./internal/typed.ts"
import * as Characters from "./Characters.ts"
import { LEGACY_MAX_MESSAGES, LEGACY_TEXT_MAX_LENGTH } from "./Limits.ts"
import {
  type AnalysisTypeName,
  type DirectedAtName,
  LegacyErrorStatus,
  type LegacyErrorStatusName,
  type RecommendedActionName,
  type SeverityName,
  type TextClassificationName
} from "./Taxonomy.ts"

/** `type` + `data` of a sender or recipient; `type` seen: `AUTHOR`. */
export const LegacyParticipant = Schema.Struct({
  type: Schema.String,
  data: Schema.Struct({
    identifier: Schema.optionalKey(Schema.String),
    username: Schema.optionalKey(Schema.String),
    birthdate: Schema.optionalKey(Schema.String),
    gender: Schema.optionalKey(Schema.String)
  })
}).annotate({ identifier: "LegacyParticipant" })

/** The content commented on; `type` seen: `VIDEO`. */
export const LegacyContent = Schema.Struct({
  type: Schema.String,
  data: Schema.Struct({
    identifier: Schema.optionalKey(Schema.String),
    title: Schema.optionalKey(Schema.String)
  })
}).annotate({ identifier: "LegacyContent" })

/** Extra context of a legacy message: thread references, sender, recipient, content commented on. */
export const LegacyContext = Schema.Struct({
  topLevelReference: Schema.optionalKey(Schema.String),
  parentReference: Schema.optionalKey(Schema.String),
  from: Schema.optionalKey(LegacyParticipant),
  to: Schema.optionalKey(LegacyParticipant),
  content: Schema.optionalKey(LegacyContent)
}).annotate({ identifier: "LegacyContext" })
export type LegacyContext = typeof LegacyContext.Type

const messageFields = {
  reference: Schema.optionalKey(Schema.String),
  context: Schema.optionalKey(LegacyContext)
} as const

/** One legacy message, strict: its text at most 1000 characters. */
export const LegacyMessage = Schema.Struct({
  text: Schema.String.check(Characters.isAtMost(LEGACY_TEXT_MAX_LENGTH)),
  ...messageFields
}).annotate({ identifier: "LegacyMessage" })
export type LegacyMessage = typeof LegacyMessage.Type

/** One legacy message as the endpoint accepts it: an over-long text is a per-message error, not a 400. */
export const LegacyMessageOnWire = Schema.Struct({ text: Schema.String, ...messageFields }).annotate({
  identifier: "LegacyMessageOnWire",
  description: `A message; a text over ${LEGACY_TEXT_MAX_LENGTH} characters comes back as a TEXT_TOO_LONG item in errors`
})
export type LegacyMessageOnWire = typeof LegacyMessageOnWire.Type

/** Body of `POST /api/analyze`: a channel and at most 100 messages. */
export const LegacyAnalyzeRequest = Schema.Struct({
  channelUuid: Schema.String.check(Schema.isNonEmpty({ message: "must not be empty" })),
  contents: Schema.Array(LegacyMessageOnWire).check(
    Schema.isMaxLength(LEGACY_MAX_MESSAGES, { message: `must hold at most ${LEGACY_MAX_MESSAGES} messages` })
  )
}).annotate({ identifier: "LegacyAnalyzeRequest", description: "Body of POST {legacy_base_url}/api/analyze" })
export type LegacyAnalyzeRequest = typeof LegacyAnalyzeRequest.Type

const rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/** The analysis of one legacy message. */
export interface LegacyAnalysis {
  readonly text?: string
  /** The message's reference (the one sent, or one the server made). */
  readonly reference: string
  readonly type?: AnalysisTypeName
  readonly severity?: SeverityName
  readonly recommendedAction?: RecommendedActionName
  readonly meta?: {
    readonly directedAt?: DirectedAtName
    readonly classifications?: ReadonlyArray<TextClassificationName>
  }
  readonly language?: string
  readonly analyzedAt?: string
}
/** Schema of `LegacyAnalysis` (lenient on decode). */
export const LegacyAnalysis = typed<LegacyAnalysis>()(
  Schema.StructWithRest(
    Schema.Struct({
      text: Schema.optionalKey(Schema.String),
      reference: Schema.String,
      type: Schema.optionalKey(Schema.String),
      severity: Schema.optionalKey(Schema.String),
      recommendedAction: Schema.optionalKey(Schema.String),
      meta: Schema.optionalKey(
        Schema.StructWithRest(
          Schema.Struct({
            directedAt: Schema.optionalKey(Schema.String),
            classifications: Schema.optionalKey(Schema.Array(Schema.String))
          }),
          rest
        )
      ),
      language: Schema.optionalKey(Schema.String),
      analyzedAt: Schema.optionalKey(Schema.String)
    }),
    rest
  ).annotate({ identifier: "LegacyAnalysis" })
)

/** One message that could not be analysed: invalid input or a reached limit. */
export interface LegacyError {
  readonly reason: string
  /** `TEXT_TOO_LONG`, or another status. */
  readonly status: LegacyErrorStatusName
  readonly details: {
    /** Index of the message in the caller's array. */
    readonly position: number
    readonly limit?: number
    readonly value?: string
  }
}
/** Schema of `LegacyError` (lenient on decode). */
export const LegacyError = typed<LegacyError>()(
  Schema.StructWithRest(
    Schema.Struct({
      reason: Schema.String,
      status: LegacyErrorStatus,
      details: Schema.StructWithRest(
        Schema.Struct({
          position: Schema.Int,
          limit: Schema.optionalKey(Schema.Int),
          value: Schema.optionalKey(Schema.String)
        }),
        rest
      )
    }),
    rest
  ).annotate({ identifier: "LegacyError" })
)

/** Response of `POST /api/analyze`: successes in `data`, failures in `errors`, HTTP 200 either way. */
export const LegacyAnalyzeResponse = Schema.Struct({
  data: Schema.Array(LegacyAnalysis),
  errors: Schema.Array(LegacyError)
}).annotate({ identifier: "LegacyAnalyzeResponse" })
export type LegacyAnalyzeResponse = typeof LegacyAnalyzeResponse.Type

/**
 * The `TEXT_TOO_LONG` error for a message at `position`, shaped as the server gives it; `undefined`
 * when the text is within the limit. Shared by the sandbox and the client's local check.
 */
export const legacyTextError = (text: string, position: number): LegacyError | undefined =>
  Characters.count(text) <= LEGACY_TEXT_MAX_LENGTH
    ? undefined
    : {
        reason: `text is ${Characters.count(text)} characters long; the limit is ${LEGACY_TEXT_MAX_LENGTH}`,
        status: "TEXT_TOO_LONG",
        details: { position, limit: LEGACY_TEXT_MAX_LENGTH, value: text }
      }
