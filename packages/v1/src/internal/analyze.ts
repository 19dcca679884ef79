/**
 * The code of `AnalyzeV1` (see there): local validation with core's schemas, the reseller check, the
 * transport, the answer's decoding. Imported when a client is built.
 */
import {
  ImageAnalyzeRequest,
  ImageAnalyzeResponse,
  type RequestValidationError,
  resellerFieldsIn,
  TextAnalyzeRequest,
  TextAnalyzeResponse,
  UsernameAnalyzeRequest,
  UsernameAnalyzeResponse,
  type WithRaw
} from "@warden/core/client"
import { Transport } from "@warden/transport"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { type AnalyzeError, RESELLER_ONLY_MESSAGE, type Shape } from "../AnalyzeV1.ts"
import type { Sent } from "../Sent.ts"
import { decodeAnswer, encodesToItself, refuse, violationsOf } from "./codec.ts"
import { spanned, untraced } from "./span.ts"

type Kind = "text" | "image" | "username"
const ENDPOINTS = { text: "analyzeText", image: "analyzeImage", username: "analyzeUsername" } as const

/**
 * Builds the analyze client on a transport; `traced`: each method call is a span (`Effect.fn`), as
 * Effect code wants; without, no span and no call-site stack per call (see `AnalyzeV1.makeUntraced`).
 */
export const make = (traced: boolean): Effect.Effect<Shape, never, Transport.Transport> =>
  Effect.gen(function* () {
    const transport = yield* Transport.Transport
    const standardKey = transport.config.keyKind === "standard"

    const call = <Req extends Schema.Top, Res extends Schema.Top>(
      kind: Kind,
      requestSchema: Req,
      responseSchema: Res
    ) => {
      const endpoint = ENDPOINTS[kind]
      const label = Transport.endpointLabel(endpoint)
      const encode = encodesToItself(requestSchema.ast)
        ? (body: unknown) => body
        : Schema.encodeUnknownSync(requestSchema as unknown as Schema.Codec<unknown, unknown>)
      return (input: Req["Type"]): Effect.Effect<Sent<WithRaw<Res["Type"]>>, AnalyzeError> => {
        const decoded = violationsOf(requestSchema, input)
        const reseller = standardKey ? resellerFieldsIn(kind, input) : []
        if (Result.isFailure(decoded) || reseller.length > 0) {
          return refuse(label, [
            ...(Result.isFailure(decoded) ? decoded.failure : []),
            ...reseller.map((field) => ({ field, message: RESELLER_ONLY_MESSAGE }))
          ]) as Effect.Effect<never, RequestValidationError>
        }
        const body = JSON.stringify(encode(decoded.success))
        return Effect.flatMap(transport.sendInCurrentSpan({ endpoint, body }), (answer) =>
          Effect.map(decodeAnswer(responseSchema, label, answer), (response) => ({
            request: body,
            response,
            responseText: answer.body,
            region: answer.region,
            attempts: answer.attempts,
            requestId: answer.requestId
          }))
        )
      }
    }

    const text = call("text", TextAnalyzeRequest, TextAnalyzeResponse)
    const image = call("image", ImageAnalyzeRequest, ImageAnalyzeResponse)
    const username = call("username", UsernameAnalyzeRequest, UsernameAnalyzeResponse)
    const responseOnly =
      <A, B>(f: (a: A) => Effect.Effect<Sent<B>, AnalyzeError>) =>
      (a: A) =>
        Effect.map(f(a), (sent) => sent.response)

    const span = traced ? spanned : untraced
    return {
      text: span("AnalyzeV1.text", responseOnly(text)),
      image: span("AnalyzeV1.image", responseOnly(image)),
      username: span("AnalyzeV1.username", responseOnly(username)),
      textWithRequest: span("AnalyzeV1.textWithRequest", text),
      imageWithRequest: span("AnalyzeV1.imageWithRequest", image),
      usernameWithRequest: span("AnalyzeV1.usernameWithRequest", username)
    }
  })
