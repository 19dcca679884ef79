/**
 * The legacy batch endpoint (`POST {legacy_base_url}/api/analyze`) for any number of messages. The
 * messages are checked locally: a malformed message fails the whole call (`RequestValidationError`,
 * field paths like `contents.3.text` in the caller's array); a text over 1000 characters becomes a
 * `TEXT_TOO_LONG` item in `errors`, shaped as the server's, and is not sent. The rest go in calls of
 * at most 100 (a few at a time), and the answers merge into one `{ data, errors }` whose
 * `details.position` values index the caller's original array. A call that fails as a whole (401,
 * 429, ...) fails the batch with its typed error.
 */
import {
  Limits,
  LegacyAnalyzeRequest,
  LegacyAnalyzeResponse,
  type LegacyError,
  LegacyMessageOnWire,
  type LegacyMessageOnWire as Message,
  legacyTextError,
  type FieldViolation,
  FieldViolations,
  RequestValidationError,
  ResponseDecodeError
} from "@warden/core/client"
import { type ApiConfig, type RateLimiter, Transport } from "@warden/transport"
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

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

const LABEL = Transport.endpointLabel("legacyAnalyze")
const STRICT = { errors: "all", onExcessProperty: "error" } as const
const decodeMessage = Schema.decodeUnknownResult(LegacyMessageOnWire)
const encodeRequest = Schema.encodeSync(LegacyAnalyzeRequest)
const decodeResponse = Schema.decodeUnknownResult(LegacyAnalyzeResponse)

/** Builds the batch client on a transport. */
export const make = (options: Options = {}): Effect.Effect<Shape, never, Transport.Transport> =>
  Effect.gen(function* () {
    const transport = yield* Transport.Transport
    const chunkSize = Math.max(1, Math.min(Limits.LEGACY_MAX_MESSAGES, Math.floor(options.chunkSize ?? 100)))
    const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4))

    const sendChunk = (channelUuid: string, messages: ReadonlyArray<Message>, positions: ReadonlyArray<number>) =>
      Effect.gen(function* () {
        const body = JSON.stringify(encodeRequest({ channelUuid, contents: messages }))
        const answer = yield* transport.send({ endpoint: "legacyAnalyze", body })
        const fail = (detail: string) => ResponseDecodeError.fromAnswer(LABEL, answer, detail)
        let json: unknown
        try {
          json = JSON.parse(answer.body)
        } catch {
          return yield* fail("the body is not JSON")
        }
        const decoded = decodeResponse(json, { errors: "all" })
        if (Result.isFailure(decoded)) {
          return yield* fail(FieldViolations.formatViolations(FieldViolations.fromSchemaError(decoded.failure)))
        }
        const errors: Array<LegacyError> = []
        for (const e of decoded.success.errors) {
          const original = positions[e.details.position]
          if (original === undefined)
            return yield* fail(`errors item at position ${e.details.position} is outside the call`)
          errors.push({ ...e, details: { ...e.details, position: original } })
        }
        const chunk: Chunk = { request: body, positions, attempts: answer.attempts, requestId: answer.requestId }
        return { data: decoded.success.data, errors, chunk }
      })

    const analyzeWithRequests = Effect.fn("LegacyBatch.analyze")(function* (
      channelUuid: string,
      messages: ReadonlyArray<Message>
    ) {
      yield* Effect.annotateCurrentSpan({ "warden.messages": messages.length })
      const violations: Array<FieldViolation> = []
      if (typeof channelUuid !== "string" || channelUuid === "") {
        violations.push({ field: "channelUuid", message: "must not be empty" })
      }
      const local: Array<LegacyError> = []
      const sendable: Array<{ message: Message; position: number }> = []
      messages.forEach((message, position) => {
        const decoded = decodeMessage(message, STRICT)
        if (Result.isFailure(decoded)) {
          for (const v of FieldViolations.fromSchemaError(decoded.failure)) {
            violations.push({
              field: v.field === "" ? `contents.${position}` : `contents.${position}.${v.field}`,
              message: v.message
            })
          }
          return
        }
        const tooLong = legacyTextError(decoded.success.text, position)
        if (tooLong !== undefined) local.push(tooLong)
        else sendable.push({ message: decoded.success, position })
      })
      if (violations.length > 0) {
        return yield* new RequestValidationError({ endpoint: LABEL, fieldViolations: violations })
      }
      const groups: Array<typeof sendable> = []
      for (let i = 0; i < sendable.length; i += chunkSize) groups.push(sendable.slice(i, i + chunkSize))
      const answers = yield* Effect.forEach(
        groups,
        (group) =>
          sendChunk(
            channelUuid,
            group.map((g) => g.message),
            group.map((g) => g.position)
          ),
        { concurrency }
      )
      const errors = [...local, ...answers.flatMap((a) => a.errors)].sort(
        (a, b) => a.details.position - b.details.position
      )
      return {
        data: answers.flatMap((a) => a.data),
        errors,
        chunks: answers.map((a) => a.chunk)
      } satisfies BatchResultWithRequests
    })

    return {
      analyzeWithRequests,
      analyze: (channelUuid, messages) =>
        Effect.map(analyzeWithRequests(channelUuid, messages), ({ data, errors }) => ({ data, errors }))
    }
  })

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
  > => LegacyBatch.layerOptions(options).pipe(Layer.provideMerge(Transport.Transport.layerConfig(overrides)))
}
