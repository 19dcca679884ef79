/**
 * Responses of the three analyze endpoints. The spec shows only the OCR fragment of the image
 * response; the rest is Warden's assumption (docs/ASSUMPTIONS.md): each response wraps one record
 * (`textAnalysis`, `imageAnalysis`, `usernameAnalysis`) shaped like the OCR `textAnalysis` fragment.
 *
 * Decoding is lenient: every field optional, any string accepted for enum-like fields, unknown fields
 * accepted, so a richer server response never breaks a client. The types are strict: the fields Warden
 * knows, open enums typed as known literals plus a branded escape (`OpenName`), and no index
 * signature, so `textAnalysis?.sevrity` is a type error. What the types do not name is in the answer's
 * `raw` (`WithRaw`): the JSON object as received.
 */
import * as Schema from "effect/Schema"
import { typed } from "./internal/typed.ts"
import type {
  AnalysisTypeName,
  DirectedAtName,
  ImageClassificationName,
  RecommendedActionName,
  SeverityName,
  TextClassificationName
} from "./Taxonomy.ts"

/** Unknown fields are accepted on decode (and kept in `raw`). */
const rest = [Schema.Record(Schema.String, Schema.Unknown)] as const
const names = Schema.Array(Schema.String)

/** A decoded answer with `raw`: the JSON object as received, fields the types do not name included. */
export type WithRaw<A> = A & {
  /** The answer's JSON as received (not enumerable: not copied by spreads or `JSON.stringify`). */
  readonly raw: { readonly [key: string]: unknown }
}

/** The verdict on a text: as in `imageAnalysis.ocrAnalysis.textAnalysis`. */
export interface TextAnalysis {
  /** `HATEFUL`, `SUPPORTIVE`, `NEUTRAL`, or another type. */
  readonly type?: AnalysisTypeName
  /** The classifications found (`INSULT`, `THREAT`, ...). */
  readonly classifications?: ReadonlyArray<TextClassificationName>
  /** `NONE` to `VERY_HIGH`, or another severity. */
  readonly severity?: SeverityName
  /** Whom the content targets (`SINGLE_PERSON`, `USER`, `UNDEFINED`, ...). */
  readonly directedAt?: DirectedAtName
  /** The detected language (ISO 639-1). */
  readonly language?: string
  /** `KEEP`, `REMOVE`, or another action. */
  readonly recommendedAction?: RecommendedActionName
}
const TextAnalysisWire = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.optionalKey(Schema.String),
    classifications: Schema.optionalKey(names),
    severity: Schema.optionalKey(Schema.String),
    directedAt: Schema.optionalKey(Schema.String),
    language: Schema.optionalKey(Schema.String),
    recommendedAction: Schema.optionalKey(Schema.String)
  }),
  rest
)
/** Schema of `TextAnalysis` (lenient on decode). */
export const TextAnalysis = typed<TextAnalysis>()(
  TextAnalysisWire.annotate({ identifier: "TextAnalysis", description: "Verdict on a text (assumed shape, lenient)" })
)

/** The OCR part of an image analysis: the extracted text and its text analysis. */
export interface OcrAnalysis {
  /** The text found in the image. */
  readonly text?: string
  /** The analysis of that text. */
  readonly textAnalysis?: TextAnalysis
}
/** Schema of `OcrAnalysis` (lenient on decode). */
export const OcrAnalysis = typed<OcrAnalysis>()(
  Schema.StructWithRest(
    Schema.Struct({
      text: Schema.optionalKey(Schema.String),
      textAnalysis: Schema.optionalKey(TextAnalysis)
    }),
    rest
  ).annotate({ identifier: "OcrAnalysis", description: "Text extracted from the image and its analysis" })
)

/** The verdict on an image: its classifications, and `ocrAnalysis` when OCR was enabled. */
export interface ImageAnalysis {
  /** The image classifications found (`NUDITY`, `WEAPONS`, ...). */
  readonly classifications?: ReadonlyArray<ImageClassificationName>
  /** The OCR result, when OCR was enabled. */
  readonly ocrAnalysis?: OcrAnalysis
}
/** Schema of `ImageAnalysis` (lenient on decode). */
export const ImageAnalysis = typed<ImageAnalysis>()(
  Schema.StructWithRest(
    Schema.Struct({
      classifications: Schema.optionalKey(names),
      ocrAnalysis: Schema.optionalKey(OcrAnalysis)
    }),
    rest
  ).annotate({ identifier: "ImageAnalysis", description: "Verdict on an image" })
)

/** The verdict on a username (assumed: the text analysis shape). */
export type UsernameAnalysis = TextAnalysis
/** Schema of `UsernameAnalysis` (lenient on decode). */
export const UsernameAnalysis = typed<UsernameAnalysis>()(
  TextAnalysisWire.annotate({
    identifier: "UsernameAnalysis",
    description: "Verdict on a username (assumed shape, lenient)"
  })
)

/** Response of `POST /analyze/v1/text`. */
export interface TextAnalyzeResponse {
  readonly textAnalysis?: TextAnalysis
}
/** Schema of `TextAnalyzeResponse` (lenient on decode). */
export const TextAnalyzeResponse = typed<TextAnalyzeResponse>()(
  Schema.StructWithRest(Schema.Struct({ textAnalysis: Schema.optionalKey(TextAnalysis) }), rest).annotate({
    identifier: "TextAnalyzeResponse"
  })
)

/** Response of `POST /analyze/v1/image`. */
export interface ImageAnalyzeResponse {
  readonly imageAnalysis?: ImageAnalysis
}
/** Schema of `ImageAnalyzeResponse` (lenient on decode). */
export const ImageAnalyzeResponse = typed<ImageAnalyzeResponse>()(
  Schema.StructWithRest(Schema.Struct({ imageAnalysis: Schema.optionalKey(ImageAnalysis) }), rest).annotate({
    identifier: "ImageAnalyzeResponse"
  })
)

/** Response of `POST /analyze/v1/username`. */
export interface UsernameAnalyzeResponse {
  readonly usernameAnalysis?: UsernameAnalysis
}
/** Schema of `UsernameAnalyzeResponse` (lenient on decode). */
export const UsernameAnalyzeResponse = typed<UsernameAnalyzeResponse>()(
  Schema.StructWithRest(Schema.Struct({ usernameAnalysis: Schema.optionalKey(UsernameAnalysis) }), rest).annotate({
    identifier: "UsernameAnalyzeResponse"
  })
)

/**
 * Attaches `raw` (the JSON object as received) to a decoded answer, not enumerable, so persisting or
 * spreading the answer does not copy it twice. The answer object itself is returned.
 */
export const withRaw = <A extends object>(answer: A, raw: unknown): WithRaw<A> =>
  Object.defineProperty(answer, "raw", { value: raw, enumerable: false, configurable: true }) as WithRaw<A>
