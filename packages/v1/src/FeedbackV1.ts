/**
 * `POST /feedback/v1/{text,image}` as a typed service. The `analyzeRequest` must be the original
 * analyze body unchanged (spec, Endpoints rule 3), so it is taken as the exact JSON text (a string or
 * UTF-8 bytes, e.g. `Sent.request` from `AnalyzeV1.textWithRequest`, or a file's content): it is
 * parsed only to validate it, and spliced into the outgoing body as given, never re-encoded. A feedback
 * with none of `classificationsToAdd`, `classificationsToRemove`, `notes` is refused locally, as is
 * any other invalid field (`RequestValidationError`, same field paths as the server).
 */
import {
  FEEDBACK_INPUTS_MESSAGE,
  FeedbackResponse,
  type Confidence,
  type FieldViolation,
  hasFeedbackInput,
  IMAGE_FEEDBACK_OCR_FLAG,
  type ImageAnalyzeRequest,
  type ImageClassificationName,
  ImageFeedbackRequest,
  RequestValidationError,
  type TextAnalyzeRequest,
  type TextClassificationName,
  TextFeedbackRequest
} from "@warden/core/client"
import { Transport } from "@warden/transport"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { decodeAnswer, refuse, violationsOf } from "./internal/codec.ts"
import type { Sent } from "./Sent.ts"

/**
 * The original analyze body: its exact JSON text (string or UTF-8 bytes), sent byte-for-byte; or an
 * object, which is serialised with `JSON.stringify` (only byte-exact if that is how it was first sent).
 */
export type AnalyzeRequestInput<A> = string | Uint8Array | A

/**
 * Classification names are typed as the known ones plus a branded escape: a typo (`"INSULTT"`) is a
 * type error; a name the client does not know yet is cast (`"NEW_NAME" as TextClassificationName`).
 */
interface Common<C> {
  /** Classifications returned that do not apply. */
  readonly classificationsToRemove?: ReadonlyArray<C> | undefined
  /** Classifications that apply but were not returned. */
  readonly classificationsToAdd?: ReadonlyArray<C> | undefined
  /** A free comment; enough on its own. */
  readonly notes?: string | undefined
  /** How sure the caller is: `LOW`/`MEDIUM` for end-user reports, `HIGH`/`VERY_HIGH` for a T&S decision. */
  readonly confidence?: Confidence | undefined
}

/** A text feedback. */
export interface TextFeedbackInput extends Common<TextClassificationName> {
  readonly analyzeRequest: AnalyzeRequestInput<TextAnalyzeRequest>
}

/** An image feedback. */
export interface ImageFeedbackInput extends Common<ImageClassificationName> {
  readonly analyzeRequest: AnalyzeRequestInput<ImageAnalyzeRequest>
  /** Whether the feedback concerns OCR; sent under `Options.ocrFlagField`. */
  readonly ocrIssue?: boolean | undefined
}

/** Why a feedback call failed. */
export type FeedbackError = RequestValidationError | Transport.Failure

/** Settings of the feedback client. */
export interface Options {
  /** Wire name of the image feedback's OCR flag (the spec does not show it); default `IMAGE_FEEDBACK_OCR_FLAG`. */
  readonly ocrFlagField?: string | undefined
}

/** Shape of the feedback client. */
export interface Shape {
  /** Reports a wrong text classification; returns the id of the recorded feedback. */
  readonly text: (input: TextFeedbackInput) => Effect.Effect<FeedbackResponse, FeedbackError>
  /** Reports a wrong image classification. */
  readonly image: (input: ImageFeedbackInput) => Effect.Effect<FeedbackResponse, FeedbackError>
  /** `text`, also returning the exact body sent. */
  readonly textWithRequest: (input: TextFeedbackInput) => Effect.Effect<Sent<FeedbackResponse>, FeedbackError>
  /** `image`, also returning the exact body sent. */
  readonly imageWithRequest: (input: ImageFeedbackInput) => Effect.Effect<Sent<FeedbackResponse>, FeedbackError>
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The exact text of `analyzeRequest`, or the violation that says why it is not usable. */
const rawText = (input: unknown): Result.Result<string, FieldViolation> => {
  if (typeof input === "string") return Result.succeed(input)
  if (input instanceof Uint8Array) {
    try {
      return Result.succeed(utf8.decode(input))
    } catch {
      return Result.fail({ field: "analyzeRequest", message: "must be UTF-8 encoded JSON" })
    }
  }
  if (typeof input === "object" && input !== null) return Result.succeed(JSON.stringify(input))
  return Result.fail({ field: "analyzeRequest", message: "is required: the original analyze body" })
}

const parse = (text: string): Result.Result<unknown, FieldViolation> => {
  try {
    return Result.succeed(JSON.parse(text))
  } catch (e) {
    return Result.fail({
      field: "analyzeRequest",
      message: `must be the JSON text of the original analyze body (${e instanceof Error ? e.message : "invalid JSON"})`
    })
  }
}

const FEEDBACK_FIELDS = ["classificationsToRemove", "classificationsToAdd", "notes", "confidence"] as const

/** Builds the feedback client on a transport. */
export const make = (options: Options = {}): Effect.Effect<Shape, never, Transport.Transport> =>
  Effect.gen(function* () {
    const transport = yield* Transport.Transport
    const ocrFlagField = options.ocrFlagField ?? IMAGE_FEEDBACK_OCR_FLAG

    const call = (kind: "text" | "image") => {
      const endpoint = kind === "text" ? "feedbackText" : "feedbackImage"
      const label = Transport.endpointLabel(endpoint)
      const schema = kind === "text" ? TextFeedbackRequest : ImageFeedbackRequest
      return (input: TextFeedbackInput | ImageFeedbackInput): Effect.Effect<Sent<FeedbackResponse>, FeedbackError> =>
        Effect.gen(function* () {
          if (typeof input !== "object" || input === null) {
            return yield* new RequestValidationError({
              endpoint: label,
              fieldViolations: [{ field: "", message: "must be an object" }]
            })
          }
          const raw = rawText(input.analyzeRequest)
          const parsed = Result.flatMap(raw, parse)
          if (Result.isFailure(parsed) || Result.isFailure(raw)) {
            return yield* new RequestValidationError({
              endpoint: label,
              fieldViolations: [
                Result.isFailure(raw) ? raw.failure : (parsed as Result.Failure<unknown, FieldViolation>).failure
              ]
            })
          }
          const rest: Record<string, unknown> = {}
          for (const key of FEEDBACK_FIELDS) if (input[key] !== undefined) rest[key] = input[key]
          const ocr = kind === "image" ? (input as ImageFeedbackInput).ocrIssue : undefined
          if (ocr !== undefined) rest[IMAGE_FEEDBACK_OCR_FLAG] = ocr
          const extra = Object.keys(input).filter(
            (k) =>
              k !== "analyzeRequest" &&
              !(FEEDBACK_FIELDS as ReadonlyArray<string>).includes(k) &&
              !(kind === "image" && k === "ocrIssue") &&
              (input as unknown as Record<string, unknown>)[k] !== undefined
          )
          const decoded = violationsOf(schema, { analyzeRequest: parsed.success, ...rest })
          const violations = [
            ...(Result.isFailure(decoded) ? decoded.failure : []),
            ...extra.map((field) => ({ field, message: "is not a known field" }))
          ]
          // the struct-level rule runs only once every field decodes: say it anyway, at once
          if (!hasFeedbackInput(rest) && !violations.some((v) => v.message === FEEDBACK_INPUTS_MESSAGE)) {
            violations.push({ field: "", message: FEEDBACK_INPUTS_MESSAGE })
          }
          yield* refuse(label, violations)
          const wire: Record<string, unknown> = {}
          for (const key of FEEDBACK_FIELDS) if (key in rest) wire[key] = rest[key]
          if (ocr !== undefined) wire[ocrFlagField] = ocr
          const tail = JSON.stringify(wire)
          const body = `{"analyzeRequest":${raw.success}${tail === "{}" ? "}" : `,${tail.slice(1)}`}`
          const answer = yield* transport.sendInCurrentSpan({ endpoint, body })
          const response = yield* decodeAnswer(FeedbackResponse, label, answer)
          return {
            request: body,
            response,
            region: answer.region,
            attempts: answer.attempts,
            requestId: answer.requestId
          }
        })
    }

    const text = call("text")
    const image = call("image")
    return {
      text: Effect.fn("FeedbackV1.text")((input: TextFeedbackInput) => Effect.map(text(input), (s) => s.response)),
      image: Effect.fn("FeedbackV1.image")((input: ImageFeedbackInput) => Effect.map(image(input), (s) => s.response)),
      textWithRequest: Effect.fn("FeedbackV1.textWithRequest")(text),
      imageWithRequest: Effect.fn("FeedbackV1.imageWithRequest")(image)
    }
  })

/** The feedback client service. */
export class FeedbackV1 extends Context.Service<FeedbackV1, Shape>()("@warden/v1/FeedbackV1") {
  /** On a `Transport`, with default options. */
  static readonly layer: Layer.Layer<FeedbackV1, never, Transport.Transport> = Layer.effect(FeedbackV1, make())
  /** On a `Transport`, with options (e.g. another wire name for the OCR flag). */
  static readonly layerOptions = (options: Options): Layer.Layer<FeedbackV1, never, Transport.Transport> =>
    Layer.effect(FeedbackV1, make(options))
}
