/**
 * Responses of the three analyze endpoints. The spec shows only the OCR fragment of the image
 * response; the rest is Warden's assumption (docs/ASSUMPTIONS.md): each response wraps one record
 * (`textAnalysis`, `imageAnalysis`, `usernameAnalysis`) shaped like the OCR `textAnalysis` fragment.
 * Everything decodes leniently: every field optional, any string accepted for enum-like fields,
 * unknown fields kept, so a richer server response never breaks a client.
 */
import { Schema } from "effect"

/** Unknown fields are kept as they are. */
const rest = [Schema.Record(Schema.String, Schema.Unknown)] as const
const names = Schema.Array(Schema.String)

/** The verdict on a text: as in `imageAnalysis.ocrAnalysis.textAnalysis`. */
export const TextAnalysis = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.optionalKey(Schema.String),
    classifications: Schema.optionalKey(names),
    severity: Schema.optionalKey(Schema.String),
    directedAt: Schema.optionalKey(Schema.String),
    language: Schema.optionalKey(Schema.String),
    recommendedAction: Schema.optionalKey(Schema.String)
  }),
  rest
).annotate({ identifier: "TextAnalysis", description: "Verdict on a text (assumed shape, lenient)" })
export type TextAnalysis = typeof TextAnalysis.Type

/** The OCR part of an image analysis: the extracted text and its text analysis. */
export const OcrAnalysis = Schema.StructWithRest(
  Schema.Struct({
    text: Schema.optionalKey(Schema.String),
    textAnalysis: Schema.optionalKey(TextAnalysis)
  }),
  rest
).annotate({ identifier: "OcrAnalysis", description: "Text extracted from the image and its analysis" })
export type OcrAnalysis = typeof OcrAnalysis.Type

/** The verdict on an image: its classifications, and `ocrAnalysis` when OCR was enabled. */
export const ImageAnalysis = Schema.StructWithRest(
  Schema.Struct({
    classifications: Schema.optionalKey(names),
    ocrAnalysis: Schema.optionalKey(OcrAnalysis)
  }),
  rest
).annotate({ identifier: "ImageAnalysis", description: "Verdict on an image" })
export type ImageAnalysis = typeof ImageAnalysis.Type

/** The verdict on a username (assumed: the text analysis shape). */
export const UsernameAnalysis = TextAnalysis.annotate({
  identifier: "UsernameAnalysis",
  description: "Verdict on a username (assumed shape, lenient)"
})
export type UsernameAnalysis = typeof UsernameAnalysis.Type

/** Response of `POST /analyze/v1/text`. */
export const TextAnalyzeResponse = Schema.StructWithRest(
  Schema.Struct({ textAnalysis: Schema.optionalKey(TextAnalysis) }),
  rest
).annotate({ identifier: "TextAnalyzeResponse" })
export type TextAnalyzeResponse = typeof TextAnalyzeResponse.Type

/** Response of `POST /analyze/v1/image`. */
export const ImageAnalyzeResponse = Schema.StructWithRest(
  Schema.Struct({ imageAnalysis: Schema.optionalKey(ImageAnalysis) }),
  rest
).annotate({ identifier: "ImageAnalyzeResponse" })
export type ImageAnalyzeResponse = typeof ImageAnalyzeResponse.Type

/** Response of `POST /analyze/v1/username`. */
export const UsernameAnalyzeResponse = Schema.StructWithRest(
  Schema.Struct({ usernameAnalysis: Schema.optionalKey(UsernameAnalysis) }),
  rest
).annotate({ identifier: "UsernameAnalyzeResponse" })
export type UsernameAnalyzeResponse = typeof UsernameAnalyzeResponse.Type
