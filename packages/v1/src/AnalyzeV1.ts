/**
 * `POST /analyze/v1/{text,image,username}` as a typed service. Each method validates the body with
 * core's schema first (a `RequestValidationError` with the server's field paths, no network call),
 * refuses reseller-only fields with a standard key, then sends through the `Transport` and decodes
 * the answer. The `...WithRequest` variants also return the exact JSON text sent.
 */
import {
  ImageAnalyzeRequest,
  ImageAnalyzeResponse,
  PATHS,
  type RequestValidationError,
  resellerFieldsIn,
  TextAnalyzeRequest,
  TextAnalyzeResponse,
  UsernameAnalyzeRequest,
  UsernameAnalyzeResponse,
  type WithRaw
} from "@warden/core/client"
import { Transport } from "@warden/transport"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { decodeAnswer, refuse, violationsOf } from "./internal/codec.ts"
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

type Kind = "text" | "image" | "username"
const ENDPOINTS = { text: "analyzeText", image: "analyzeImage", username: "analyzeUsername" } as const

/** Builds the analyze client on a transport. */
export const make: Effect.Effect<Shape, never, Transport.Transport> = Effect.gen(function* () {
  const transport = yield* Transport.Transport
  const standardKey = transport.config.keyKind === "standard"

  const call = <Req extends Schema.Top, Res extends Schema.Top>(
    kind: Kind,
    requestSchema: Req,
    responseSchema: Res
  ) => {
    const endpoint = ENDPOINTS[kind]
    const label = Transport.endpointLabel(endpoint)
    const encode = Schema.encodeUnknownSync(requestSchema as unknown as Schema.Codec<unknown, unknown>)
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

  return {
    text: Effect.fn("AnalyzeV1.text")(responseOnly(text)),
    image: Effect.fn("AnalyzeV1.image")(responseOnly(image)),
    username: Effect.fn("AnalyzeV1.username")(responseOnly(username)),
    textWithRequest: Effect.fn("AnalyzeV1.textWithRequest")(text),
    imageWithRequest: Effect.fn("AnalyzeV1.imageWithRequest")(image),
    usernameWithRequest: Effect.fn("AnalyzeV1.usernameWithRequest")(username)
  }
})

/** The paths this client calls. */
export const paths = [PATHS.analyzeText, PATHS.analyzeImage, PATHS.analyzeUsername] as const

/** The analyze client service. */
export class AnalyzeV1 extends Context.Service<AnalyzeV1, Shape>()("@warden/v1/AnalyzeV1") {
  /** On a `Transport` (build one with `Transport.layerConfig()` or `Transport.layerOptions({...})`). */
  static readonly layer: Layer.Layer<AnalyzeV1, never, Transport.Transport> = Layer.effect(AnalyzeV1, make)
}
