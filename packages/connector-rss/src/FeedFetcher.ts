/**
 * Fetches a feed politely: conditional GET (ETag / Last-Modified), gzip/deflate/br, bounded
 * redirects, a size cap enforced while streaming, a timeout, charset from the HTTP header, a BOM or
 * the XML declaration, and `Retry-After` read from 429/503 answers.
 *
 * Built on the connector SDK's `Http.client` (undici, through `HTTP(S)_PROXY` with `NO_PROXY` honoured,
 * as every Warden client goes), a pool per source closed with the source's scope, so no socket
 * outlives a source. The client decompresses the body (`Accept-Encoding` is ours) and follows no
 * redirect: they are followed here, bounded and `http(s):` only.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { STATUS_CODES } from "node:http"
import { ConnectorError, Http } from "@warden/connector"
import { Clock, Duration, Effect, Redacted, Schema, type Scope, Stream } from "effect"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"

/** Per-request settings. */
export interface FetchOptions {
  readonly timeout: Duration.Duration
  readonly maxBytes: number
  readonly maxRedirects: number
  readonly userAgent: string
  readonly headers: Readonly<Record<string, Redacted.Redacted<string>>>
}

/** Validators from the previous answer, sent back as `If-None-Match` / `If-Modified-Since`. */
export interface Validators {
  readonly etag?: string | undefined
  readonly lastModified?: string | undefined
}

/**
 * The answer: a new document (its bytes, decoded by {@link decodeBody}) or "not modified". `digest`
 * is the SHA-1 of the final URL, the content type and the bytes: the same digest decodes and parses to
 * the same feed. Taken of the bytes, not of the decoded text: hashing an 8,000-item document's text
 * (2 MB) took 14 ms more than its bytes, at every turn of a backlog over the same document.
 */
export type FetchResult =
  | {
      readonly _tag: "Fetched"
      readonly bytes: Uint8Array
      readonly digest: string
      readonly url: string
      readonly contentType: string | undefined
      readonly validators: Validators
    }
  | { readonly _tag: "NotModified" }

const digestOf = (url: string, contentType: string | undefined, bytes: Uint8Array): string =>
  createHash("sha1")
    .update(url)
    .update("\n")
    .update(contentType ?? "")
    .update("\n")
    .update(bytes)
    .digest("hex")

/**
 * Why a fetch failed. `reason`: `Network`, `Timeout`, `Status` (with `status`), `TooLarge`,
 * `TooManyRedirects`, `InvalidResponse`. `retryAfterMillis` comes from a `Retry-After` header.
 */
export class FetchError extends Schema.TaggedError<FetchError>()("FetchError", {
  reason: Schema.Literals(["Network", "Timeout", "Status", "TooLarge", "TooManyRedirects", "InvalidResponse"]),
  message: Schema.String,
  status: Schema.optionalKey(Schema.Int),
  retryAfterMillis: Schema.optionalKey(Schema.Finite)
}) {}

/** Parses a `Retry-After` value (seconds or an HTTP date) into milliseconds from `now`. */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

const charsetFromContentType = (contentType: string | undefined): string | undefined =>
  contentType?.match(/charset\s*=\s*"?([^";\s]+)"?/i)?.[1]

const charsetFromXmlDeclaration = (bytes: Uint8Array): string | undefined => {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString("latin1")
  return head.match(/^\s*<\?xml[^>]*\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/)?.[1]
}

/**
 * Decodes a document: a byte order mark wins, then the HTTP `charset`, then the XML declaration,
 * else UTF-8. Unknown labels fall back to UTF-8.
 */
export const decodeBody = (bytes: Uint8Array, contentType: string | undefined): string => {
  let label: string | undefined
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) label = "utf-8"
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) label = "utf-16le"
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = "utf-16be"
  label ??= charsetFromContentType(contentType) ?? charsetFromXmlDeclaration(bytes) ?? "utf-8"
  let decoder: TextDecoder
  try {
    decoder = new TextDecoder(label)
  } catch {
    decoder = new TextDecoder("utf-8")
  }
  const text = decoder.decode(bytes)
  // Drop the XML declaration's encoding claim: the string is now decoded.
  return text.replace(/^(\s*<\?xml[^>]*?)\s+encoding\s*=\s*["'][^"']*["']/, "$1")
}

/** A fetcher bound to a keep-alive pool that is closed when the scope closes. */
export interface Fetcher {
  readonly fetch: (url: string, validators: Validators) => Effect.Effect<FetchResult, FetchError>
}

type Hop = { readonly _tag: "Redirect"; readonly location: string } | FetchResult

/** Reads what is left of a short answer whose body is not wanted (a redirect, a 304), so that its connection serves again. */
const discard = (response: HttpClientResponse.HttpClientResponse) => Effect.ignore(Stream.runDrain(response.stream))

/** Makes a fetcher whose sockets live in the given scope. */
export const make = (options: FetchOptions): Effect.Effect<Fetcher, never, Scope.Scope> =>
  Effect.gen(function* () {
    // The client's own span is off: its attributes would carry the feed URL, which may carry a token
    // (this module's `FeedFetcher.fetch` span has none).
    const client = (yield* Http.client({ connections: 4 })).pipe(
      HttpClient.transformResponse(Effect.provideService(HttpClient.TracerDisabledWhen, () => true)),
      HttpClient.withScope
    )

    const once = (url: URL, validators: Validators): Effect.Effect<Hop, FetchError> =>
      Effect.gen(function* () {
        const headers: Record<string, string> = {
          accept:
            "application/rss+xml, application/atom+xml, application/rdf+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5",
          "accept-encoding": "gzip, deflate, br",
          "user-agent": options.userAgent
        }
        for (const [k, v] of Object.entries(options.headers)) headers[k.toLowerCase()] = Redacted.value(v)
        if (validators.etag !== undefined) headers["if-none-match"] = validators.etag
        if (validators.lastModified !== undefined) headers["if-modified-since"] = validators.lastModified
        const res = yield* client
          .execute(HttpClientRequest.get(url, { headers }))
          .pipe(
            Effect.mapError((error) => new FetchError({ reason: "Network", message: Http.failureMessage(url, error) }))
          )
        const status = res.status
        if (status >= 300 && status < 400 && status !== 304) {
          const location = res.headers.location
          yield* discard(res)
          if (location === undefined) {
            return yield* new FetchError({ reason: "InvalidResponse", status, message: `${status} without Location` })
          }
          return { _tag: "Redirect", location } as const
        }
        if (status === 304) {
          yield* discard(res)
          return { _tag: "NotModified" } as const
        }
        if (status !== 200) {
          const retryAfterMillis = parseRetryAfter(res.headers["retry-after"], yield* Clock.currentTimeMillis)
          return yield* new FetchError({
            reason: "Status",
            status,
            message: `HTTP ${status}${STATUS_CODES[status] === undefined ? "" : ` ${STATUS_CODES[status]}`}`,
            ...(retryAfterMillis === undefined ? {} : { retryAfterMillis })
          })
        }
        const declared = Number(res.headers["content-length"])
        if (Number.isFinite(declared) && declared > options.maxBytes) {
          return yield* new FetchError({
            reason: "TooLarge",
            message: `Content-Length ${declared} over the cap of ${options.maxBytes} bytes`
          })
        }
        const bytes = yield* Http.readBody(res.stream, options.maxBytes).pipe(
          Effect.mapError((error) =>
            error._tag === "BodyTooLarge"
              ? new FetchError({ reason: "TooLarge", message: `body over the cap of ${options.maxBytes} bytes` })
              : new FetchError({
                  reason: "InvalidResponse",
                  message: `body: ${Http.failureMessage(url, error)}`
                })
          )
        )
        const contentType = res.headers["content-type"]
        const final = url.toString()
        return {
          _tag: "Fetched",
          bytes,
          digest: digestOf(final, contentType, bytes),
          url: final,
          contentType,
          validators: { etag: res.headers.etag, lastModified: res.headers["last-modified"] }
        } as const
      }).pipe(
        // The answer's lifetime: an unread body is dropped with its connection when this hop ends.
        Effect.scoped
      )

    // A span per fetch (no attributes: a feed URL may carry a token).
    const fetch = Effect.fn("FeedFetcher.fetch")(
      (url: string, validators: Validators): Effect.Effect<FetchResult, FetchError> =>
        Effect.gen(function* () {
          let current = new URL(url)
          for (let hop = 0; ; hop++) {
            const result = yield* once(current, validators)
            if (result._tag !== "Redirect") return result
            if (hop >= options.maxRedirects) {
              return yield* new FetchError({
                reason: "TooManyRedirects",
                message: `more than ${options.maxRedirects} redirects`
              })
            }
            const next = new URL(result.location, current)
            if (next.protocol !== "http:" && next.protocol !== "https:") {
              return yield* new FetchError({
                reason: "InvalidResponse",
                message: `redirect to ${next.protocol} refused`
              })
            }
            current = next
          }
        }).pipe(
          Effect.timeoutOrElse({
            duration: options.timeout,
            orElse: () =>
              Effect.fail(
                new FetchError({
                  reason: "Timeout",
                  message: `no complete answer within ${Duration.format(options.timeout)}`
                })
              )
          })
        )
    )

    return { fetch }
  })

/** Maps a fetch failure to the connector's error vocabulary (for `error` events). */
export const toConnectorError = (feed: string, error: FetchError): ConnectorError.ConnectorError =>
  new ConnectorError.ConnectorError({
    source: "rss",
    reason:
      error.reason === "Timeout"
        ? "Timeout"
        : error.status === 429
          ? "RateLimited"
          : error.status === 401 || error.status === 403
            ? "Unauthorized"
            : error.reason === "Network" || error.reason === "Status"
              ? "Unavailable"
              : "InvalidResponse",
    retryable: true,
    message: `${ConnectorError.redactUrl(feed)}: ${error.message}`
  })
