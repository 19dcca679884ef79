/**
 * The code of `LegacyBatch` (see there): local checks with core's schemas, chunks, the transport, the
 * merged answer. Imported when a client is built.
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
import { Transport } from "@warden/transport"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { BatchResultWithRequests, Chunk, Options, Shape } from "../LegacyBatch.ts"

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
