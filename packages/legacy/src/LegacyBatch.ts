/**
 * The legacy batch endpoint (`POST {legacy_base_url}/api/analyze`) for any number of messages. The
 * messages are checked locally: a malformed message fails the whole call (`RequestValidationError`,
 * field paths like `contents.3.text` in the caller's array); a text over 1000 characters becomes a
 * `TEXT_TOO_LONG` item in `errors`, shaped as the server's, and is not sent. The rest go in calls of
 * at most 100 (a few at a time), and the answers merge into one `{ data, errors }` whose
 * `details.position` values index the caller's original array. A call that fails as a whole (401,
 * 429, ...) fails the batch with its typed error.
 *
 * This module declares the service; its code (`internal/batch.ts`) and core's schemas are loaded when
 * a client is built (see `make`).
 */
import type { LegacyAnalyzeResponse, LegacyMessageOnWire as Message, RequestValidationError } from "@warden/core/client"
import type { ApiConfig, RateLimiter, Transport } from "@warden/transport"
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Settings of the batch client. */
export interface Options {
  /** Messages per call, at most 100 (default 100). */
  readonly chunkSize?: number | undefined
  /** Calls in flight at once for one batch (default 4); the limiter still paces them. */
  readonly concurrency?: number | undefined
}

/** One call of a batch: the exact body sent, and which of the caller's messages it carried. */
export interface Chunk {
  /** The exact JSON text sent. */
  readonly request: string
  /** `positions[i]` is the caller's index of the chunk's message `i`. */
  readonly positions: ReadonlyArray<number>
  readonly attempts: number
  readonly requestId: string
}

/** The merged answer: every analysis, and every per-message error with positions in the caller's array. */
export type BatchResult = LegacyAnalyzeResponse

/** The merged answer and the calls made. */
export interface BatchResultWithRequests extends BatchResult {
  readonly chunks: ReadonlyArray<Chunk>
}

/** Why a batch failed as a whole. */
export type LegacyBatchError = RequestValidationError | Transport.Failure

/** Shape of the batch client. */
export interface Shape {
  /** Analyses any number of messages of one channel. */
  readonly analyze: (
    channelUuid: string,
    messages: ReadonlyArray<Message>
  ) => Effect.Effect<BatchResult, LegacyBatchError>
  /** `analyze`, also returning each call's exact body and positions. */
  readonly analyzeWithRequests: (
    channelUuid: string,
    messages: ReadonlyArray<Message>
  ) => Effect.Effect<BatchResultWithRequests, LegacyBatchError>
}

/**
 * Builds the batch client on a transport. Its code and schemas are imported here, on first use, not
 * when `@warden/legacy` is imported.
 */
export const make = (options: Options = {}): Effect.Effect<Shape, never, Transport.Transport> =>
  Effect.flatMap(
    Effect.promise(() => import("./internal/batch.ts")),
    (batch) => batch.make(options)
  )

/** The legacy batch client service. */
export class LegacyBatch extends Context.Service<LegacyBatch, Shape>()("@warden/legacy/LegacyBatch") {
  /** On a `Transport`, with default options. */
  static readonly layer: Layer.Layer<LegacyBatch, never, Transport.Transport> = Layer.effect(LegacyBatch, make())
  /** On a `Transport`, with options. */
  static readonly layerOptions = (options: Options): Layer.Layer<LegacyBatch, never, Transport.Transport> =>
    Layer.effect(LegacyBatch, make(options))
  /** On a transport configured from the environment (`WARDEN_LEGACY_BASE_URL`, `WARDEN_LEGACY_API_KEY`, ...). */
  static readonly layerConfig = (
    overrides: ApiConfig.Overrides = {},
    options: Options = {}
  ): Layer.Layer<
    LegacyBatch | Transport.Transport | RateLimiter.RateLimiter | ApiConfig.ApiConfig,
    ApiConfig.ApiConfigError | Config.ConfigError
  > =>
    Layer.unwrap(
      Effect.promise(() => import("@warden/transport")).pipe(
        Effect.map((t) =>
          LegacyBatch.layerOptions(options).pipe(Layer.provideMerge(t.Transport.Transport.layerConfig(overrides)))
        )
      )
    )
}
