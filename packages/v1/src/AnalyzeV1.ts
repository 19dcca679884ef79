/**
 * `POST /analyze/v1/{text,image,username}` as a typed service. Each method validates the body with
 * core's schema first (a `RequestValidationError` with the server's field paths, no network call),
 * refuses reseller-only fields with a standard key, then sends through the `Transport` and decodes
 * the answer. The `...WithRequest` variants also return the exact JSON text sent.
 *
 * This module declares the service; its code (`internal/analyze.ts`) and core's schemas are loaded
 * when a client is built, so that `import("@warden/v1")` stays small (see `make`).
 */
import type {
  ImageAnalyzeRequest,
  ImageAnalyzeResponse,
  RequestValidationError,
  TextAnalyzeRequest,
  TextAnalyzeResponse,
  UsernameAnalyzeRequest,
  UsernameAnalyzeResponse,
  WithRaw
} from "@warden/core/client"
import { PATHS } from "@warden/core/endpoints"
import type { Transport } from "@warden/transport"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Sent } from "./Sent.ts"

/** Why an analyze call failed: refused locally, or any transport failure. */
export type AnalyzeError = RequestValidationError | Transport.Failure

/** The message of a reseller-only field sent with a standard key. */
export const RESELLER_ONLY_MESSAGE = "is reserved for reseller keys; this client is configured with a standard key"

/** Shape of the analyze client. */
export interface Shape {
  /** Analyses a text. */
  readonly text: (request: TextAnalyzeRequest) => Effect.Effect<WithRaw<TextAnalyzeResponse>, AnalyzeError>
  /** Analyses an image, by URL or inline base64 bytes. */
  readonly image: (request: ImageAnalyzeRequest) => Effect.Effect<WithRaw<ImageAnalyzeResponse>, AnalyzeError>
  /** Analyses a username. */
  readonly username: (request: UsernameAnalyzeRequest) => Effect.Effect<WithRaw<UsernameAnalyzeResponse>, AnalyzeError>
  /** `text`, also returning the exact body sent (keep it for feedback). */
  readonly textWithRequest: (
    request: TextAnalyzeRequest
  ) => Effect.Effect<Sent<WithRaw<TextAnalyzeResponse>>, AnalyzeError>
  /** `image`, also returning the exact body sent. */
  readonly imageWithRequest: (
    request: ImageAnalyzeRequest
  ) => Effect.Effect<Sent<WithRaw<ImageAnalyzeResponse>>, AnalyzeError>
  /** `username`, also returning the exact body sent. */
  readonly usernameWithRequest: (
    request: UsernameAnalyzeRequest
  ) => Effect.Effect<Sent<WithRaw<UsernameAnalyzeResponse>>, AnalyzeError>
}

const code = Effect.promise(() => import("./internal/analyze.ts"))

/**
 * Builds the analyze client on a transport. Its code and the request and response schemas are
 * imported here, on first use, not when `@warden/v1` is imported.
 */
export const make: Effect.Effect<Shape, never, Transport.Transport> = Effect.flatMap(code, (analyze) =>
  analyze.make(true)
)

/**
 * `make` without a span (nor a call-site stack) per method call, for a runtime that has no tracer to
 * give them to: the Promise client `Warden` uses it. A span cost about a tenth of a call's client-side
 * CPU (docs/BENCHMARKS.md).
 */
export const makeUntraced: Effect.Effect<Shape, never, Transport.Transport> = Effect.flatMap(code, (analyze) =>
  analyze.make(false)
)

/** The paths this client calls. */
export const paths = [PATHS.analyzeText, PATHS.analyzeImage, PATHS.analyzeUsername] as const

/** The analyze client service. */
export class AnalyzeV1 extends Context.Service<AnalyzeV1, Shape>()("@warden/v1/AnalyzeV1") {
  /** On a `Transport` (build one with `Transport.layerConfig()` or `Transport.layerOptions({...})`). */
  static readonly layer: Layer.Layer<AnalyzeV1, never, Transport.Transport> = Layer.effect(AnalyzeV1, make)
  /** The same without a span per call (`makeUntraced`): for a runtime without a tracer. */
  static readonly layerUntraced: Layer.Layer<AnalyzeV1, never, Transport.Transport> = Layer.effect(
    AnalyzeV1,
    makeUntraced
  )
}
