/**
 * Classification names and the other enumerations of the API.
 *
 * The spec lists the names that "occur" and says the complete lists are not shown, so most of these
 * are open enums: any upper-case name decodes, so a new classification on the server never breaks a
 * client; the known names are exported as literal lists and types (for autocompletion and docs).
 * `Industry` and `Confidence` are closed: the spec gives their whole lists.
 */
import * as Schema from "effect/Schema"

const UPPER_CASE_NAME = /^[A-Z][A-Z0-9_]*$/u

declare const OtherNameKind: unique symbol
/**
 * A name of an open enum that this client does not list (the spec's lists are incomplete). Branded, so
 * a typo of a known name (`"INSULTT"`) is a type error while a new name still fits once cast:
 * `"NEW_NAME" as TextClassificationName`. At run time it is a plain string.
 */
export type OtherName<Kind extends string> = string & { readonly [OtherNameKind]: Kind }
/** An open enum's type: the known literals (autocompleted, typo-checked), or an `OtherName` of that kind. */
export type OpenName<Known extends string, Kind extends string> = Known | OtherName<Kind>

/** Builds an open enum: the known literals, or any other upper-case name. */
export const openEnum = <const L extends ReadonlyArray<string>>(known: L, what: string) =>
  Schema.String.check(
    Schema.isPattern(UPPER_CASE_NAME, {
      message: `must be an upper-case ${what} name such as ${known.slice(0, 3).join(", ")}`
    })
  ).annotate({
    description: `An upper-case ${what} name. Known: ${known.join(", ")}; others may occur`,
    examples: known
  })

/** The text classification names the spec shows. */
export const TEXT_CLASSIFICATIONS = ["INSULT", "CRITICISM", "HATRED", "THREAT", "SUPPORTIVE", "NEUTRAL"] as const
/** A text classification name (open: other upper-case names decode too). */
export const TextClassification = openEnum(TEXT_CLASSIFICATIONS, "text classification")
/** A known text classification name. */
export type KnownTextClassification = (typeof TEXT_CLASSIFICATIONS)[number]
/** A text classification name: a known one, or another cast with `as TextClassificationName`. */
export type TextClassificationName = OpenName<KnownTextClassification, "TextClassification">

/** The image classification names the spec shows. */
export const IMAGE_CLASSIFICATIONS = [
  "PARTIAL_NUDITY",
  "GRAPHIC_NUDITY",
  "NUDITY",
  "WEAPONS",
  "CSAM",
  "EXTREME_VIOLENCE_AND_GORE",
  "GRAPHIC_VIOLENCE",
  "VISUALLY_DISTURBING",
  "HATE_SPEECH_AND_SYMBOLS",
  "ALCOHOL",
  "QR_CODE"
] as const
/** An image classification name (open). */
export const ImageClassification = openEnum(IMAGE_CLASSIFICATIONS, "image classification")
/** A known image classification name. */
export type KnownImageClassification = (typeof IMAGE_CLASSIFICATIONS)[number]
/** An image classification name: a known one, or another cast with `as ImageClassificationName`. */
export type ImageClassificationName = OpenName<KnownImageClassification, "ImageClassification">

/** The industries a reseller may set (closed: the spec lists them all). */
export const INDUSTRIES = [
  "INDUSTRY_MEDIA",
  "INDUSTRY_SPORT",
  "INDUSTRY_GAMING",
  "INDUSTRY_BRAND",
  "INDUSTRY_SOCIAL_PLATFORM",
  "INDUSTRY_TECH_PROVIDER",
  "INDUSTRY_OTHER"
] as const
/** The reseller `industry` field. */
export const Industry = Schema.Literals(INDUSTRIES)
export type Industry = typeof Industry.Type

/** Feedback confidence levels (closed). `LOW`/`MEDIUM`: end-user reports; `HIGH`/`VERY_HIGH`: T&S decisions. */
export const CONFIDENCES = ["LOW", "MEDIUM", "HIGH", "VERY_HIGH"] as const
/** The feedback `confidence` field. */
export const Confidence = Schema.Literals(CONFIDENCES)
export type Confidence = typeof Confidence.Type

/** Severities seen, from least to most severe: the order the daemon's policies compare with. */
export const SEVERITIES = ["NONE", "LOW", "MEDIUM", "HIGH", "VERY_HIGH"] as const
/** A severity (open). */
export const Severity = openEnum(SEVERITIES, "severity")
/** A known severity. */
export type KnownSeverity = (typeof SEVERITIES)[number]
/** A severity in an answer: a known one, or another the server added. */
export type SeverityName = OpenName<KnownSeverity, "Severity">
/** Rank of a severity for "at or above" comparisons; unknown names rank just below `MEDIUM`. */
export const severityRank = (severity: string): number => {
  const index = (SEVERITIES as ReadonlyArray<string>).indexOf(severity)
  return index === -1 ? 1.5 : index
}

/** Recommended actions seen. */
export const RECOMMENDED_ACTIONS = ["KEEP", "REMOVE"] as const
/** A recommended action (open). */
export const RecommendedAction = openEnum(RECOMMENDED_ACTIONS, "recommended action")
/** A known recommended action. */
export type KnownRecommendedAction = (typeof RECOMMENDED_ACTIONS)[number]
/** A recommended action in an answer. */
export type RecommendedActionName = OpenName<KnownRecommendedAction, "RecommendedAction">

/** Whom harmful content is directed at, as seen. */
export const DIRECTED_AT = ["SINGLE_PERSON", "USER", "UNDEFINED"] as const
/** A `directedAt` value (open). */
export const DirectedAt = openEnum(DIRECTED_AT, "directedAt")
/** A known `directedAt` value. */
export type KnownDirectedAt = (typeof DIRECTED_AT)[number]
/** A `directedAt` value in an answer. */
export type DirectedAtName = OpenName<KnownDirectedAt, "DirectedAt">

/** Analysis types seen. */
export const ANALYSIS_TYPES = ["HATEFUL", "SUPPORTIVE", "NEUTRAL"] as const
/** An analysis `type` (open). */
export const AnalysisType = openEnum(ANALYSIS_TYPES, "analysis type")
/** A known analysis `type`. */
export type KnownAnalysisType = (typeof ANALYSIS_TYPES)[number]
/** An analysis `type` in an answer. */
export type AnalysisTypeName = OpenName<KnownAnalysisType, "AnalysisType">

/** Per-message legacy error statuses seen. */
export const LEGACY_ERROR_STATUSES = ["TEXT_TOO_LONG"] as const
/** A legacy error `status` (open). */
export const LegacyErrorStatus = openEnum(LEGACY_ERROR_STATUSES, "legacy error status")
/** A known legacy error `status`. */
export type KnownLegacyErrorStatus = (typeof LEGACY_ERROR_STATUSES)[number]
/** A legacy error `status` in an answer. */
export type LegacyErrorStatusName = OpenName<KnownLegacyErrorStatus, "LegacyErrorStatus">
