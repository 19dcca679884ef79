/**
 * The Promise client of the v1 endpoints, for services that do not use Effect:
 *
 * ```ts
 * const warden = new Warden() // WARDEN_API_KEY, WARDEN_BASE_URL
 * const answer = await warden.analyze.text({ channelId, text }, { signal, timeout: 2_000 })
 * await warden.close()
 * ```
 *
 * One client per process (or per key): it owns one runtime, built in the background once made, so the
 * client-side limiter, the keep-alive pool and the retry settings are shared by every call. Each
 * method is the Effect service's method (`AnalyzeV1`, `FeedbackV1`, without their spans) run on that
 * runtime; failures are `WardenError`s (`@warden/core/errors`).
 */
import type {
  ImageAnalyzeRequest,
  ImageAnalyzeResponse,
  TextAnalyzeRequest,
  TextAnalyzeResponse,
  UsernameAnalyzeRequest,
  UsernameAnalyzeResponse,
  WithRaw,
  FeedbackResponse
} from "@warden/core/client"
import { endpointLabel } from "@warden/core/endpoints"
import * as PromiseClient from "@warden/transport/promise"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { AnalyzeV1 } from "./AnalyzeV1.ts"
import { FeedbackV1, type ImageFeedbackInput, type TextFeedbackInput } from "./FeedbackV1.ts"
import type { Sent } from "./Sent.ts"

/** Options of `new Warden(...)`: the key and base URL default to `WARDEN_API_KEY` and `WARDEN_BASE_URL`. */
export interface WardenOptions extends PromiseClient.ClientOptions {
  /** Wire name of the image feedback's OCR flag (the spec does not show it); default `ocrIssue`. */
  readonly ocrFlagField?: string | undefined
}

/** Options of one call: `signal`, `timeout` (ms, the whole call), `maxRetries`, `requestId`. */
export type RequestOptions = PromiseClient.RequestOptions

const label = {
  text: endpointLabel("analyzeText"),
  image: endpointLabel("analyzeImage"),
  username: endpointLabel("analyzeUsername"),
  feedbackText: endpointLabel("feedbackText"),
  feedbackImage: endpointLabel("feedbackImage")
} as const

/** `POST /analyze/v1/{text,image,username}`. */
export interface Analyze {
  /** Analyses a text. */
  readonly text: (body: TextAnalyzeRequest, options?: RequestOptions) => Promise<WithRaw<TextAnalyzeResponse>>
  /** Analyses an image, by URL or inline base64 bytes. */
  readonly image: (body: ImageAnalyzeRequest, options?: RequestOptions) => Promise<WithRaw<ImageAnalyzeResponse>>
  /** Analyses a username. */
  readonly username: (
    body: UsernameAnalyzeRequest,
    options?: RequestOptions
  ) => Promise<WithRaw<UsernameAnalyzeResponse>>
  /** `text`, also returning the exact body sent (keep it for feedback), the request id and attempts. */
  readonly textWithRequest: (
    body: TextAnalyzeRequest,
    options?: RequestOptions
  ) => Promise<Sent<WithRaw<TextAnalyzeResponse>>>
  /** `image`, also returning the exact body sent. */
  readonly imageWithRequest: (
    body: ImageAnalyzeRequest,
    options?: RequestOptions
  ) => Promise<Sent<WithRaw<ImageAnalyzeResponse>>>
  /** `username`, also returning the exact body sent. */
  readonly usernameWithRequest: (
    body: UsernameAnalyzeRequest,
    options?: RequestOptions
  ) => Promise<Sent<WithRaw<UsernameAnalyzeResponse>>>
}

/** `POST /feedback/v1/{text,image}`: resolves with the id of the recorded feedback. */
export interface Feedback {
  /** Reports a wrong text classification (`analyzeRequest`: the exact body first sent). */
  readonly text: (input: TextFeedbackInput, options?: RequestOptions) => Promise<FeedbackResponse>
  /** Reports a wrong image classification. */
  readonly image: (input: ImageFeedbackInput, options?: RequestOptions) => Promise<FeedbackResponse>
}

/**
 * The v1 client for Promise code. Server-side only: it holds an API key, which must never reach a
 * browser (the package's `browser` export refuses to load).
 */
export class Warden {
  /** The analyze endpoints. */
  readonly analyze: Analyze
  /** The feedback endpoints. */
  readonly feedback: Feedback
  readonly #runtime: PromiseClient.Runtime<AnalyzeV1 | FeedbackV1>

  /**
   * Checks the options at once: a missing or empty key, a missing base URL, an unknown region or a
   * malformed number throws `WardenConfigError` here, naming the option and its variable.
   */
  constructor(options: WardenOptions = {}) {
    const resolved = PromiseClient.resolve(options, "v1")
    const runtime = new PromiseClient.Runtime(
      // no tracer can be given to a Promise client: its calls make no spans (AnalyzeV1.makeUntraced)
      Layer.mergeAll(AnalyzeV1.layerUntraced, FeedbackV1.layerUntraced({ ocrFlagField: options.ocrFlagField })),
      options,
      resolved
    )
    this.#runtime = runtime
    this.analyze = {
      text: (body, o) => runtime.run(label.text, (s) => Context.get(s, AnalyzeV1).text(body), o),
      image: (body, o) => runtime.run(label.image, (s) => Context.get(s, AnalyzeV1).image(body), o),
      username: (body, o) => runtime.run(label.username, (s) => Context.get(s, AnalyzeV1).username(body), o),
      textWithRequest: (body, o) => runtime.run(label.text, (s) => Context.get(s, AnalyzeV1).textWithRequest(body), o),
      imageWithRequest: (body, o) =>
        runtime.run(label.image, (s) => Context.get(s, AnalyzeV1).imageWithRequest(body), o),
      usernameWithRequest: (body, o) =>
        runtime.run(label.username, (s) => Context.get(s, AnalyzeV1).usernameWithRequest(body), o)
    }
    this.feedback = {
      text: (input, o) => runtime.run(label.feedbackText, (s) => Context.get(s, FeedbackV1).text(input), o),
      image: (input, o) => runtime.run(label.feedbackImage, (s) => Context.get(s, FeedbackV1).image(input), o)
    }
  }

  /** Closes the connection pool. Calls made after it reject with `WardenError` code `CLIENT_CLOSED`. */
  close(): Promise<void> {
    return this.#runtime.close()
  }

  /** `await using warden = new Warden()` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }
}
