/**
 * Classification names and the other enumerations of the API.
 *
 * The spec lists the names that "occur" and says the complete lists are not shown, so most of these
 * are open enums: any upper-case name decodes, so a new classification on the server never breaks a
 * client; the known names are exported as literal lists and types (for autocompletion and docs).
 * `Industry` and `Confidence` are closed: the spec gives their whole lists.
 */
import * as Schema from "effect/Schema"
import {
  ANALYSIS_TYPES,
  CONFIDENCES,
  DIRECTED_AT,
  IMAGE_CLASSIFICATIONS,
  INDUSTRIES,
  LEGACY_ERROR_STATUSES,
  RECOMMENDED_ACTIONS,
  SEVERITIES,
  TEXT_CLASSIFICATIONS
} from "./TaxonomyNames.ts"

// The lists themselves live apart (no effect import: the review console bundles them without Schema).
export * from "./TaxonomyNames.ts"

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

/** A text classification name (open: other upper-case names decode too). */
export const TextClassification = openEnum(TEXT_CLASSIFICATIONS, "text classification")
/** A known text classification name. */
export type KnownTextClassification = (typeof TEXT_CLASSIFICATIONS)[number]
/** A text classification name: a known one, or another cast with `as TextClassificationName`. */
export type TextClassificationName = OpenName<KnownTextClassification, "TextClassification">

/** An image classification name (open). */
export const ImageClassification = openEnum(IMAGE_CLASSIFICATIONS, "image classification")
/** A known image classification name. */
export type KnownImageClassification = (typeof IMAGE_CLASSIFICATIONS)[number]
/** An image classification name: a known one, or another cast with `as ImageClassificationName`. */
export type ImageClassificationName = OpenName<KnownImageClassification, "ImageClassification">

/** The reseller `industry` field. */
export const Industry = Schema.Literals(INDUSTRIES)
export type Industry = typeof Industry.Type

/** The feedback `confidence` field. */
export const Confidence = Schema.Literals(CONFIDENCES)
export type Confidence = typeof Confidence.Type

/** A severity (open). */
export const Severity = openEnum(SEVERITIES, "severity")
/** A known severity. */
export type KnownSeverity = (typeof SEVERITIES)[number]
/** A severity in an answer: a known one, or another the server added. */
export type SeverityName = OpenName<KnownSeverity, "Severity">

/** A recommended action (open). */
export const RecommendedAction = openEnum(RECOMMENDED_ACTIONS, "recommended action")
/** A known recommended action. */
export type KnownRecommendedAction = (typeof RECOMMENDED_ACTIONS)[number]
/** A recommended action in an answer. */
export type RecommendedActionName = OpenName<KnownRecommendedAction, "RecommendedAction">

/** A `directedAt` value (open). */
export const DirectedAt = openEnum(DIRECTED_AT, "directedAt")
/** A known `directedAt` value. */
export type KnownDirectedAt = (typeof DIRECTED_AT)[number]
/** A `directedAt` value in an answer. */
export type DirectedAtName = OpenName<KnownDirectedAt, "DirectedAt">

/** An analysis `type` (open). */
export const AnalysisType = openEnum(ANALYSIS_TYPES, "analysis type")
/** A known analysis `type`. */
export type KnownAnalysisType = (typeof ANALYSIS_TYPES)[number]
/** An analysis `type` in an answer. */
export type AnalysisTypeName = OpenName<KnownAnalysisType, "AnalysisType">

/** A legacy error `status` (open). */
export const LegacyErrorStatus = openEnum(LEGACY_ERROR_STATUSES, "legacy error status")
/** A known legacy error `status`. */
export type KnownLegacyErrorStatus = (typeof LEGACY_ERROR_STATUSES)[number]
/** A legacy error `status` in an answer. */
export type LegacyErrorStatusName = OpenName<KnownLegacyErrorStatus, "LegacyErrorStatus">
