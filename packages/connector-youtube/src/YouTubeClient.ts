/**
 * Calls the YouTube Data API v3 over `effect/http`: authenticates (API key or OAuth bearer token),
 * counts every call's quota cost in the {@link QuotaBudget}, decodes every answer with its Schema and
 * maps error bodies (`errors[].reason`) to an {@link ApiError}. No call is retried blindly: the one
 * retry is a 401 with OAuth, once, after refreshing the access token.
 *
 * @since 0.1.0
 */
import { Effect, Redacted, Schema } from "effect"
import { type HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import type * as OAuth from "./OAuth.ts"
import type * as QuotaBudget from "./QuotaBudget.ts"
import * as YouTubeApi from "./YouTubeApi.ts"

/**
 * A Data API call failed. `kind`: `QuotaExceeded` (daily quota spent), `RateLimited` (too fast),
 * `Unauthorized` (401: key or token rejected), `Forbidden` (403: e.g. `insufficientPermissions`,
 * `commentsDisabled`, `forbidden`), `NotFound` (404: e.g. `commentNotFound`, `videoNotFound`),
 * `Invalid` (400), `Unavailable` (5xx, network), `Timeout`, `InvalidResponse` (the answer did not
 * decode: `message` names the field). `reason` is the API's `errors[0].reason`.
 */
export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", {
  method: Schema.String,
  kind: Schema.Literals([
    "QuotaExceeded",
    "RateLimited",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Invalid",
    "Unavailable",
    "Timeout",
    "InvalidResponse"
  ]),
  status: Schema.optionalKey(Schema.Int),
  reason: Schema.optionalKey(Schema.String),
  message: Schema.String
}) {}

/** How requests authenticate. */
export type Auth =
  | { readonly _tag: "ApiKey"; readonly key: Redacted.Redacted<string> }
  | { readonly _tag: "OAuth"; readonly tokens: OAuth.TokenProvider }

/** Settings of a client. */
export interface Options {
  readonly baseUrl: string
  readonly auth: Auth
  readonly budget: QuotaBudget.QuotaBudget
  readonly timeoutMillis: number
}

/** Query parameters of a call. */
export type Params = Readonly<Record<string, string | number | boolean | undefined>>

/** A Data API client bound to a source's credentials and budget. */
export interface YouTubeClient {
  /** A GET list call whose answer decodes with `schema`. */
  readonly list: <S extends Schema.Top & { readonly DecodingServices: never }>(
    method: YouTubeApi.Method,
    path: string,
    params: Params,
    schema: S
  ) => Effect.Effect<S["Type"], ApiError | OAuth.OAuthError>
  /** A POST call answered with no content (e.g. `comments.setModerationStatus`). */
  readonly post: (
    method: YouTubeApi.Method,
    path: string,
    params: Params
  ) => Effect.Effect<void, ApiError | OAuth.OAuthError>
}

/** Maps an error answer to an {@link ApiError}. */
export const errorFromBody = (method: string, status: number, body: unknown): ApiError => {
  const decoded = Schema.decodeUnknownOption(YouTubeApi.ErrorBody)(body)
  const error = decoded._tag === "Some" ? decoded.value.error : undefined
  const reason = error?.errors?.[0]?.reason
  const kind: ApiError["kind"] =
    reason !== undefined && YouTubeApi.quotaReasons.has(reason)
      ? "QuotaExceeded"
      : status === 429 || (reason !== undefined && YouTubeApi.rateLimitReasons.has(reason) && status !== 401)
        ? "RateLimited"
        : status === 401
          ? "Unauthorized"
          : status === 403
            ? "Forbidden"
            : status === 404
              ? "NotFound"
              : status === 400
                ? "Invalid"
                : "Unavailable"
  return new ApiError({
    method,
    kind,
    status,
    ...(reason === undefined ? {} : { reason }),
    message: `${method}: HTTP ${status}${reason === undefined ? "" : ` ${reason}`}${error === undefined ? "" : `: ${error.message}`}`
  })
}

/** Makes a client over an HTTP client (whose connections the caller scopes). */
export const make = (http: HttpClient.HttpClient, options: Options): YouTubeClient => {
  const base = options.baseUrl.replace(/\/+$/, "")

  const send = (method: YouTubeApi.Method, request: HttpClientRequest.HttpClientRequest) =>
    Effect.gen(function* () {
      let req = HttpClientRequest.acceptJson(request)
      // The key stays `Redacted` in the URL params: effect's HTTP client sends its value and records it
      // as `<redacted>` on the request's span (a plain string would be exported with every traced poll;
      // test/secrets.test.ts).
      if (options.auth._tag === "ApiKey") req = HttpClientRequest.setUrlParam(req, "key", options.auth.key)
      else req = HttpClientRequest.bearerToken(req, Redacted.value(yield* options.auth.tokens.token))
      yield* options.budget.spend(YouTubeApi.cost[method])
      const response: HttpClientResponse.HttpClientResponse = yield* http.execute(req).pipe(
        Effect.timeoutOrElse({
          duration: options.timeoutMillis,
          orElse: () =>
            Effect.fail(
              new ApiError({
                method,
                kind: "Timeout",
                message: `${method}: no answer within ${options.timeoutMillis} ms`
              })
            )
        }),
        Effect.catchTag("HttpClientError", (e) =>
          Effect.fail(new ApiError({ method, kind: "Unavailable", message: `${method}: ${e.reason._tag}` }))
        )
      )
      return response
    })

  const execute = (
    method: YouTubeApi.Method,
    request: HttpClientRequest.HttpClientRequest
  ): Effect.Effect<{ readonly status: number; readonly body: unknown }, ApiError | OAuth.OAuthError> =>
    Effect.gen(function* () {
      // On the span of the caller (`list` / `post`): the API method and the quota units it costs.
      yield* Effect.annotateCurrentSpan({ "youtube.method": method, "youtube.quota_cost": YouTubeApi.cost[method] })
      let response = yield* send(method, request)
      if (response.status === 401 && options.auth._tag === "OAuth") {
        // The access token may have been revoked early: refresh once and try again.
        yield* options.auth.tokens.invalidate
        response = yield* send(method, request)
      }
      const text = yield* response.text.pipe(
        Effect.catchTag("HttpClientError", () =>
          Effect.fail(new ApiError({ method, kind: "Unavailable", message: `${method}: answer body cut short` }))
        )
      )
      let body: unknown = null
      if (text.trim() !== "") {
        try {
          body = JSON.parse(text)
        } catch {
          if (response.status >= 200 && response.status < 300) {
            return yield* new ApiError({
              method,
              kind: "InvalidResponse",
              status: response.status,
              message: `${method}: answer is not JSON`
            })
          }
        }
      }
      if (response.status < 200 || response.status >= 300) return yield* errorFromBody(method, response.status, body)
      return { status: response.status, body }
    })

  const url = (path: string, params: Params) => {
    const clean: Record<string, string> = {}
    for (const [k, v] of Object.entries(params)) if (v !== undefined) clean[k] = String(v)
    return HttpClientRequest.setUrlParams(HttpClientRequest.get(`${base}${path}`), clean)
  }

  // A span per call (`list` / `post`), with the API method and the quota units it costs (`execute`
  // sets them): never the
  // key or token (the key stays `Redacted` in the URL, the token in a header effect redacts), nor a
  // comment's text or author.
  const list = Effect.fn("YouTubeClient.list")(function* <S extends Schema.Top & { readonly DecodingServices: never }>(
    method: YouTubeApi.Method,
    path: string,
    params: Params,
    schema: S
  ): Effect.fn.Return<S["Type"], ApiError | OAuth.OAuthError> {
    const { body, status } = yield* execute(method, url(path, params))
    return yield* Schema.decodeUnknownEffect(schema)(body).pipe(
      Effect.mapError(
        (e) =>
          new ApiError({
            method,
            kind: "InvalidResponse",
            status,
            message: `${method}: unexpected answer: ${e.message}`
          })
      )
    )
  })
  const post = Effect.fn("YouTubeClient.post")(function* (
    method: YouTubeApi.Method,
    path: string,
    params: Params
  ): Effect.fn.Return<void, ApiError | OAuth.OAuthError> {
    yield* execute(method, HttpClientRequest.setMethod(url(path, params), "POST"))
  })
  return { list, post }
}
