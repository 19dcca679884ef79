/**
 * The names of the API's enumerations as plain lists, and nothing else: no `effect` import, so a
 * browser page (the daemon's review console) or a script can offer them without bundling `Schema`.
 * `Taxonomy.ts` builds the schemas from these lists and re-exports them.
 */

/** The text classification names the spec shows. */
export const TEXT_CLASSIFICATIONS = ["INSULT", "CRITICISM", "HATRED", "THREAT", "SUPPORTIVE", "NEUTRAL"] as const

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

/** Feedback confidence levels (closed). `LOW`/`MEDIUM`: end-user reports; `HIGH`/`VERY_HIGH`: T&S decisions. */
export const CONFIDENCES = ["LOW", "MEDIUM", "HIGH", "VERY_HIGH"] as const

/** Severities seen, from least to most severe: the order the daemon's policies compare with. */
export const SEVERITIES = ["NONE", "LOW", "MEDIUM", "HIGH", "VERY_HIGH"] as const

/** Rank of a severity for "at or above" comparisons; unknown names rank just below `MEDIUM`. */
export const severityRank = (severity: string): number => {
  const index = (SEVERITIES as ReadonlyArray<string>).indexOf(severity)
  return index === -1 ? 1.5 : index
}

/** Recommended actions seen. */
export const RECOMMENDED_ACTIONS = ["KEEP", "REMOVE"] as const

/** Whom harmful content is directed at, as seen. */
export const DIRECTED_AT = ["SINGLE_PERSON", "USER", "UNDEFINED"] as const

/** Analysis types seen. */
export const ANALYSIS_TYPES = ["HATEFUL", "SUPPORTIVE", "NEUTRAL"] as const

/** Per-message legacy error statuses seen. */
export const LEGACY_ERROR_STATUSES = ["TEXT_TOO_LONG"] as const
