/**
 * Request fields reserved for reseller keys. All optional; a setting not sent keeps the channel's
 * configured value. Which fields apply to which endpoint is the spec's table, kept here as the
 * per-endpoint subsets; a field sent to an endpoint where it does not apply is ignored (by the
 * sandbox, and the client does not count it as "reseller field sent" either).
 */
import * as Schema from "effect/Schema"
import { LanguageCode } from "./Primitives.ts"
import { ImageClassification, Industry } from "./Taxonomy.ts"

/** `industry`: adapts thresholds and context to the platform's vertical. */
const industry = Schema.optionalKey(Industry)
/** `defaultLanguage`: decides only when language detection is weak or ambiguous. */
const defaultLanguage = Schema.optionalKey(LanguageCode)
/** `customerContext`: free English text describing the channel (512 to 1024 characters recommended). */
const customerContext = Schema.optionalKey(Schema.String)
/** `classificationsEnabled`: only these image classifications are evaluated and returned. */
const classificationsEnabled = Schema.optionalKey(Schema.Array(ImageClassification))
/** `ocrEnabled`: extract all text in the image and analyse it once; result in `ocrAnalysis`. */
const ocrEnabled = Schema.optionalKey(Schema.Boolean)

/** Every reseller-only field, as the spec's table lists them. */
export const ResellerFields = Schema.Struct({
  industry,
  defaultLanguage,
  customerContext,
  classificationsEnabled,
  ocrEnabled
})
export type ResellerFields = typeof ResellerFields.Type

/** The reseller fields that apply to `POST /analyze/v1/text`. */
export const TextResellerFields = { industry, defaultLanguage } as const
/** The reseller fields that apply to `POST /analyze/v1/image`. */
export const ImageResellerFields = {
  industry,
  defaultLanguage,
  customerContext,
  classificationsEnabled,
  ocrEnabled
} as const
/** The reseller fields that apply to `POST /analyze/v1/username`. */
export const UsernameResellerFields = { industry, defaultLanguage, customerContext } as const

/** Names of all reseller-only fields. */
export const RESELLER_FIELD_NAMES = [
  "industry",
  "defaultLanguage",
  "customerContext",
  "classificationsEnabled",
  "ocrEnabled"
] as const

/** The reseller field names that apply to each analyze endpoint. */
export const RESELLER_FIELDS_BY_ENDPOINT = {
  text: ["industry", "defaultLanguage"],
  image: RESELLER_FIELD_NAMES,
  username: ["industry", "defaultLanguage", "customerContext"]
} as const satisfies Record<"text" | "image" | "username", ReadonlyArray<(typeof RESELLER_FIELD_NAMES)[number]>>

/**
 * The reseller-only fields present in a body for an endpoint (only those that apply there).
 * A standard key sending any of them is refused: see docs/ASSUMPTIONS.md.
 */
export const resellerFieldsIn = (endpoint: keyof typeof RESELLER_FIELDS_BY_ENDPOINT, body: unknown): Array<string> => {
  if (typeof body !== "object" || body === null) return []
  return RESELLER_FIELDS_BY_ENDPOINT[endpoint].filter((name) => Object.hasOwn(body, name))
}
