/**
 * Feedback on a classification: the bodies of `POST /feedback/v1/text` and `/feedback/v1/image`, and
 * their response. `analyzeRequest` is the exact analyze body sent originally (spec rule 3).
 */
import * as Schema from "effect/Schema"
import { ImageAnalyzeRequest } from "./ImageAnalyzeRequest.ts"
import { Uuid } from "./Primitives.ts"
import { TextAnalyzeRequest } from "./TextAnalyzeRequest.ts"
import { Confidence, ImageClassification, TextClassification } from "./Taxonomy.ts"

/**
 * The wire name of the image feedback's optional "issue with OCR" flag. The spec does not show it;
 * this is Warden's assumption (docs/ASSUMPTIONS.md). The client lets a caller send it under another
 * name (`FeedbackV1` option `ocrFlagField`) should the real name differ.
 */
export const IMAGE_FEEDBACK_OCR_FLAG = "ocrIssue"

/** The three inputs of which a feedback needs at least one (spec rule 2). */
export const FEEDBACK_INPUTS = ["classificationsToAdd", "classificationsToRemove", "notes"] as const

/** Message of the "at least one of" rule, naming the three fields. */
export const FEEDBACK_INPUTS_MESSAGE =
  "at least one of classificationsToAdd, classificationsToRemove or notes must be present (notes alone is enough)"

/** Whether a body carries at least one of the three feedback inputs. */
export const hasFeedbackInput = (body: object): boolean => FEEDBACK_INPUTS.some((key) => Object.hasOwn(body, key))

const atLeastOneInput = Schema.makeFilter<object>((body) => hasFeedbackInput(body) || FEEDBACK_INPUTS_MESSAGE, {
  message: FEEDBACK_INPUTS_MESSAGE
})

const feedbackFields = <C extends Schema.Top>(classification: C) =>
  ({
    classificationsToRemove: Schema.optionalKey(Schema.Array(classification)),
    classificationsToAdd: Schema.optionalKey(Schema.Array(classification)),
    notes: Schema.optionalKey(Schema.String),
    confidence: Schema.optionalKey(Confidence)
  }) as const

/** Body of `POST /feedback/v1/text`. */
export const TextFeedbackRequest = Schema.Struct({
  analyzeRequest: TextAnalyzeRequest,
  ...feedbackFields(TextClassification)
})
  .check(atLeastOneInput)
  .annotate({ identifier: "TextFeedbackRequest", description: "Body of POST /feedback/v1/text" })
export type TextFeedbackRequest = typeof TextFeedbackRequest.Type

/** Body of `POST /feedback/v1/image`; classification names refer to the image taxonomy. */
export const ImageFeedbackRequest = Schema.Struct({
  analyzeRequest: ImageAnalyzeRequest,
  ...feedbackFields(ImageClassification),
  [IMAGE_FEEDBACK_OCR_FLAG]: Schema.optionalKey(Schema.Boolean)
})
  .check(atLeastOneInput)
  .annotate({ identifier: "ImageFeedbackRequest", description: "Body of POST /feedback/v1/image" })
export type ImageFeedbackRequest = typeof ImageFeedbackRequest.Type

/** Response of both feedback endpoints: only the uuid of the recorded feedback (spec rule 1). */
export const FeedbackResponse = Schema.Struct({ id: Uuid }).annotate({
  identifier: "FeedbackResponse",
  description: "Identifier of the recorded feedback"
})
export type FeedbackResponse = typeof FeedbackResponse.Type
