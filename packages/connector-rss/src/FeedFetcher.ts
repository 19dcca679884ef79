/**
 * Fetches a feed politely: conditional GET (ETag / Last-Modified), gzip/deflate/br, bounded
 * redirects, a size cap enforced while streaming, a timeout, charset from the HTTP header, a BOM or
 * the XML declaration, and `Retry-After` read from 429/503 answers.
 *
 * Built on node:http/https with an agent per source, destroyed with the source's scope, so no socket
 * outlives a source.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as Http from "node:http"
import * as Https from "node:https"
import type { Readable } from "node:stream"
import * as Zlib from "node:zlib"
import { ConnectorError } from "@warden/connector"
import { Duration, Effect, Redacted, Schema, type Scope } from "effect"

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

const decompress = (res: Http.IncomingMessage): Readable => {
  switch ((res.headers["content-encoding"] ?? "identity").toLowerCase().trim()) {
    case "gzip":
    case "x-gzip":
      return res.pipe(Zlib.createGunzip())
    case "deflate":
      // Some servers send raw deflate instead of zlib-wrapped: inflateRaw would be needed then.
      return res.pipe(Zlib.createInflate())
    case "br":
      return res.pipe(Zlib.createBrotliDecompress())
    default:
      return res
  }
}

/** A fetcher bound to a pair of keep-alive agents that are destroyed when the scope closes. */
export interface Fetcher {
  readonly fetch: (url: string, validators: Validators) => Effect.Effect<FetchResult, FetchError>
}

/** Makes a fetcher whose sockets live in the given scope. */
export const make = (options: FetchOptions): Effect.Effect<Fetcher, never, Scope.Scope> =>
  Effect.gen(function* () {
    const agents = yield* Effect.acquireRelease(
      Effect.sync(() => {
        // Node's own proxy support (24.5+, 22.21+): HTTP_PROXY/HTTPS_PROXY honoured, NO_PROXY too, as the
        // API client does (hence `engines`: an older Node would ignore the option and connect directly).
        const settings = { keepAlive: true, maxSockets: 4, proxyEnv: process.env }
        return { http: new Http.Agent(settings), https: new Https.Agent(settings) }
      }),
      (a) =>
        Effect.sync(() => {
          a.http.destroy()
          a.https.destroy()
        })
    )

    const once = (url: URL, validators: Validators) =>
      Effect.callback<{ readonly _tag: "Redirect"; readonly location: string } | FetchResult, FetchError>(
        (resume, signal) => {
          const headers: Record<string, string> = {
            accept:
              "application/rss+xml, application/atom+xml, application/rdf+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5",
            "accept-encoding": "gzip, deflate, br",
            "user-agent": options.userAgent
          }
          for (const [k, v] of Object.entries(options.headers)) headers[k.toLowerCase()] = Redacted.value(v)
          if (validators.etag !== undefined) headers["if-none-match"] = validators.etag
          if (validators.lastModified !== undefined) headers["if-modified-since"] = validators.lastModified
          const isHttps = url.protocol === "https:"
          const request = (isHttps ? Https.request : Http.request)(url, {
            method: "GET",
            headers,
            agent: isHttps ? agents.https : agents.http,
            signal
          })
          let settled = false
          const done = (effect: Effect.Effect<any, FetchError>) => {
            if (settled) return
            settled = true
            resume(effect)
          }
          const failWith = (error: FetchError) => {
            done(Effect.fail(error))
            request.destroy()
          }
          request.on("error", (error: NodeJS.ErrnoException) => {
            if (signal.aborted) return
            done(Effect.fail(new FetchError({ reason: "Network", message: networkMessage(error) })))
          })
          request.on("response", (res) => {
            const status = res.statusCode ?? 0
            if (status >= 300 && status < 400 && status !== 304) {
              const location = res.headers.location
              res.resume()
              if (location === undefined) {
                return failWith(
                  new FetchError({ reason: "InvalidResponse", status, message: `${status} without Location` })
                )
              }
              return done(Effect.succeed({ _tag: "Redirect", location }))
            }
            if (status === 304) {
              res.resume()
              return done(Effect.succeed({ _tag: "NotModified" }))
            }
            if (status !== 200) {
              res.resume()
              const retryAfterMillis = parseRetryAfter(res.headers["retry-after"], Date.now())
              return failWith(
                new FetchError({
                  reason: "Status",
                  status,
                  message: `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ""}`,
                  ...(retryAfterMillis === undefined ? {} : { retryAfterMillis })
                })
              )
            }
            const declared = Number(res.headers["content-length"])
            if (Number.isFinite(declared) && declared > options.maxBytes) {
              res.destroy()
              return failWith(
                new FetchError({
                  reason: "TooLarge",
                  message: `Content-Length ${declared} over the cap of ${options.maxBytes} bytes`
                })
              )
            }
            const body = decompress(res)
            const chunks: Array<Buffer> = []
            let size = 0
            body.on("data", (chunk: Buffer) => {
              size += chunk.length
              if (size > options.maxBytes) {
                body.destroy()
                res.destroy()
                failWith(
                  new FetchError({ reason: "TooLarge", message: `body over the cap of ${options.maxBytes} bytes` })
                )
                return
              }
              chunks.push(chunk)
            })
            body.on("error", (error: Error) => {
              failWith(new FetchError({ reason: "InvalidResponse", message: `body: ${error.message}` }))
            })
            body.on("end", () => {
              const contentType = res.headers["content-type"]
              const bytes = Buffer.concat(chunks)
              // The chunks stay reachable from this listener as long as the response does: drop them.
              chunks.length = 0
              const final = url.toString()
              done(
                Effect.succeed({
                  _tag: "Fetched",
                  bytes,
                  digest: digestOf(final, contentType, bytes),
                  url: final,
                  contentType,
                  validators: {
                    etag: res.headers.etag,
                    lastModified: res.headers["last-modified"]
                  }
                })
              )
            })
          })
          request.end()
        }
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

const TLS_CODE = /^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)_)/u

/**
 * One line an operator can act on: the code alone (`EPROTO`) says little, so Node's sentence is kept
 * (its first line: OpenSSL appends a multi-line trace) and a TLS failure says it is one.
 */
const networkMessage = (error: NodeJS.ErrnoException): string => {
  const first = (error.message.split("\n")[0] ?? "").trim()
  const code = error.code
  const text = code === undefined || first.includes(code) ? first : `${code}: ${first}`
  return code !== undefined && TLS_CODE.test(code) ? `TLS handshake failed: ${text}` : text
}

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
