/**
 * OAuth 2.0 access tokens from a refresh token (Google's token endpoint, `grant_type=refresh_token`).
 * The token is cached and refreshed a minute before it expires; concurrent callers share one refresh.
 * `invalid_grant` (the refresh token was revoked or expired) is one clear, non-retryable error.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Redacted, Schema, Semaphore } from "effect"
import { type HttpClient, HttpClientRequest } from "effect/http"
import * as YouTubeApi from "./YouTubeApi.ts"

/**
 * Getting a token failed. `kind`: `InvalidGrant` (refresh token revoked or expired: a human must
 * authorise again), `InvalidClient` (client id/secret wrong), `Unavailable` (network, 5xx: retry later),
 * `InvalidResponse` (the answer did not decode).
 */
export class OAuthError extends Schema.TaggedError<OAuthError>()("OAuthError", {
  kind: Schema.Literals(["InvalidGrant", "InvalidClient", "Unavailable", "InvalidResponse"]),
  message: Schema.String
}) {}

/** The message of `invalid_grant`, telling the user what to do. */
export const invalidGrantMessage =
  "the OAuth refresh token was rejected (invalid_grant): it was revoked, or it expired. Refresh tokens of " +
  "OAuth apps in 'Testing' publishing status expire after 7 days; publish the app (or re-authorise every " +
  "week), then get a new refresh token as docs/connectors/youtube.md explains and update refreshToken"

/** Credentials and endpoint. */
export interface Options {
  readonly tokenUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly refreshToken: Redacted.Redacted<string>
  readonly timeoutMillis: number
}

/** Hands out a valid access token. */
export interface TokenProvider {
  /** A token valid for at least another minute (refreshed when needed). */
  readonly token: Effect.Effect<Redacted.Redacted<string>, OAuthError>
  /** Forgets the cached token (after a 401): the next `token` refreshes. */
  readonly invalidate: Effect.Effect<void>
}

/** Refresh this long before the token expires. */
export const refreshMarginMillis = 60_000

/** Makes a token provider over an HTTP client. */
export const make = (client: HttpClient.HttpClient, options: Options): Effect.Effect<TokenProvider> =>
  Effect.gen(function* () {
    const lock = yield* Semaphore.make(1)
    let cached: { readonly token: Redacted.Redacted<string>; readonly expiresAt: number } | undefined

    // A span per refresh (not per `token`: a cached token is handed out without one), with no
    // attribute: the request's body carries the client secret and the refresh token (the HTTP
    // client's own span records no body), the answer the access token.
    const refresh = Effect.fn("OAuth.refresh")(function* () {
      const request = HttpClientRequest.post(options.tokenUrl).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyUrlParams({
          grant_type: "refresh_token",
          client_id: options.clientId,
          client_secret: Redacted.value(options.clientSecret),
          refresh_token: Redacted.value(options.refreshToken)
        })
      )
      const response = yield* client.execute(request).pipe(
        Effect.timeoutOrElse({
          duration: options.timeoutMillis,
          orElse: () => Effect.fail(new OAuthError({ kind: "Unavailable", message: "token endpoint timed out" }))
        }),
        Effect.catchTag("HttpClientError", (e) =>
          Effect.fail(new OAuthError({ kind: "Unavailable", message: `token endpoint: ${e.reason._tag}` }))
        )
      )
      const body = yield* response.json.pipe(Effect.orElseSucceed(() => null as unknown))
      if (response.status >= 200 && response.status < 300) {
        const token = yield* Schema.decodeUnknownEffect(YouTubeApi.TokenResponse)(body).pipe(
          Effect.mapError(
            (e) => new OAuthError({ kind: "InvalidResponse", message: `token endpoint answer: ${e.message}` })
          )
        )
        const now = yield* Clock.currentTimeMillis
        cached = { token: Redacted.make(token.access_token), expiresAt: now + token.expires_in * 1000 }
        return cached.token
      }
      const error = Schema.decodeUnknownOption(YouTubeApi.TokenErrorResponse)(body)
      const code = error._tag === "Some" ? error.value.error : undefined
      if (code === "invalid_grant") return yield* new OAuthError({ kind: "InvalidGrant", message: invalidGrantMessage })
      if (code === "invalid_client" || code === "unauthorized_client") {
        return yield* new OAuthError({
          kind: "InvalidClient",
          message: `the token endpoint rejected the OAuth client (${code}): check clientId and clientSecret`
        })
      }
      return yield* new OAuthError({
        kind: response.status >= 500 || response.status === 429 ? "Unavailable" : "InvalidResponse",
        message: `token endpoint answered ${response.status}${code === undefined ? "" : ` (${code})`}`
      })
    })

    const token = lock.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (cached !== undefined && now < cached.expiresAt - refreshMarginMillis) return cached.token
        return yield* refresh()
      })
    )
    const invalidate = Effect.sync(() => {
      cached = undefined
    })
    return { token, invalidate }
  })
