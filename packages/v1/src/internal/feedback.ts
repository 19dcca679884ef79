/**
 * The code of `FeedbackV1` (see there): the exact analyze body spliced in as given, local validation
 * with core's schemas, the transport, the answer's decoding. Imported when a client is built.
 */
import {
  FEEDBACK_INPUTS_MESSAGE,
  FeedbackResponse,
  type FieldViolation,
  hasFeedbackInput,
  IMAGE_FEEDBACK_OCR_FLAG,
  ImageFeedbackRequest,
  RequestValidationError,
  TextFeedbackRequest
} from "@warden/core/client"
import { Transport } from "@warden/transport"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { FeedbackError, ImageFeedbackInput, Options, Shape, TextFeedbackInput } from "../FeedbackV1.ts"
import type { Sent } from "../Sent.ts"
import { decodeAnswer, refuse, violationsOf } from "./codec.ts"
import { spanned, untraced } from "./span.ts"

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

/** Builds the feedback client on a transport; `traced` as in `internal/analyze.ts`. */
export const make = (options: Options, traced: boolean): Effect.Effect<Shape, never, Transport.Transport> =>
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
            responseText: answer.body,
            region: answer.region,
            attempts: answer.attempts,
            requestId: answer.requestId
          }
        })
    }

    const text = call("text")
    const image = call("image")
    const span = traced ? spanned : untraced
    return {
      text: span("FeedbackV1.text", (input: TextFeedbackInput) => Effect.map(text(input), (s) => s.response)),
      image: span("FeedbackV1.image", (input: ImageFeedbackInput) => Effect.map(image(input), (s) => s.response)),
      textWithRequest: span("FeedbackV1.textWithRequest", text),
      imageWithRequest: span("FeedbackV1.imageWithRequest", image)
    }
  })
