/**
 * `POST /feedback/v1/{text,image}` as a typed service. The `analyzeRequest` must be the original
 * analyze body unchanged (spec, Endpoints rule 3), so it is taken as the exact JSON text (a string or
 * UTF-8 bytes, e.g. `Sent.request` from `AnalyzeV1.textWithRequest`, or a file's content): it is
 * parsed only to validate it, and spliced into the outgoing body as given, never re-encoded. A feedback
 * with none of `classificationsToAdd`, `classificationsToRemove`, `notes` is refused locally, as is
 * any other invalid field (`RequestValidationError`, same field paths as the server).
 *
 * This module declares the service; its code (`internal/feedback.ts`) and core's schemas are loaded
 * when a client is built (see `make`).
 */
import type {
  Confidence,
  FeedbackResponse,
  ImageAnalyzeRequest,
  ImageClassificationName,
  RequestValidationError,
  TextAnalyzeRequest,
  TextClassificationName
} from "@warden/core/client"
import type { Transport } from "@warden/transport"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
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

const code = Effect.promise(() => import("./internal/feedback.ts"))

/**
 * Builds the feedback client on a transport. Its code and schemas are imported here, on first use,
 * not when `@warden/v1` is imported.
 */
export const make = (options: Options = {}): Effect.Effect<Shape, never, Transport.Transport> =>
  Effect.flatMap(code, (feedback) => feedback.make(options, true))

/** `make` without a span per method call, for a runtime without a tracer (as `AnalyzeV1.makeUntraced`). */
export const makeUntraced = (options: Options = {}): Effect.Effect<Shape, never, Transport.Transport> =>
  Effect.flatMap(code, (feedback) => feedback.make(options, false))

/** The feedback client service. */
export class FeedbackV1 extends Context.Service<FeedbackV1, Shape>()("@warden/v1/FeedbackV1") {
  /** On a `Transport`, with default options. */
  static readonly layer: Layer.Layer<FeedbackV1, never, Transport.Transport> = Layer.effect(FeedbackV1, make())
  /** On a `Transport`, with options (e.g. another wire name for the OCR flag). */
  static readonly layerOptions = (options: Options): Layer.Layer<FeedbackV1, never, Transport.Transport> =>
    Layer.effect(FeedbackV1, make(options))
  /** With options, without a span per call (`makeUntraced`): for a runtime without a tracer. */
  static readonly layerUntraced = (options: Options = {}): Layer.Layer<FeedbackV1, never, Transport.Transport> =>
    Layer.effect(FeedbackV1, makeUntraced(options))
}
