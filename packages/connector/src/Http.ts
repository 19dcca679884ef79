/**
 * A small HTTP client for connectors that leaves no socket open: one connection per request
 * (`agent: false`, `Connection: close`), destroyed when the request ends, times out or is
 * interrupted (the source's scope closing). The conformance kit's `cleanShutdown` check passes with it;
 * a shared keep-alive agent is what usually fails that check.
 *
 * Failures are `ConnectorError`s with the reason a source needs: `Unavailable` (connection refused,
 * reset, 5xx), `Timeout`, `RateLimited` (429, with the `Retry-After` in the message), `Unauthorized`
 * (401/403, not retryable), `InvalidResponse` (an answer too large or not matching the schema). URLs
 * in messages are redacted (no credentials, no query string). Through `HTTPS_PROXY`/`HTTP_PROXY`
 * when the environment sets them (`NO_PROXY` honoured; see `Proxy`).
 *
 * ```ts
 * const items = yield* Http.getJson("hn", Items, { url: `${config.url}?after=${after}`, timeout: "10 seconds" })
 * ```
 *
 * @since 0.2.0
 */
import * as NodeHttp from "node:http"
import * as NodeHttps from "node:https"
import { Duration, Effect, Redacted, Schema } from "effect"
import { ConnectorError, redactUrl } from "./ConnectorError.ts"
import * as Proxy from "./Proxy.ts"

/** One request. Header values may be `Redacted` (tokens): they are revealed only on the wire. */
export interface Request {
  readonly url: string | URL
  readonly method?: string | undefined
  readonly headers?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  readonly body?: string | undefined
  /** The whole exchange, body included (default 30 seconds). */
  readonly timeout?: Duration.Input | undefined
  /** Largest body read (default 10 MiB); a larger answer is `InvalidResponse`. */
  readonly maxBytes?: number | undefined
}

/** An answer, whatever its status. */
export interface Response {
  readonly status: number
  readonly headers: NodeHttp.IncomingHttpHeaders
  readonly body: string
}

const failure = (source: string, reason: string, retryable: boolean, message: string) =>
  new ConnectorError({ source, reason, retryable, message })

/** Sends one request and reads the whole answer; any status is a success here (see {@link getJson}). */
export const request = (source: string, req: Request): Effect.Effect<Response, ConnectorError> => {
  const url = new URL(req.url)
  const shown = redactUrl(url)
  const timeoutMillis = Duration.toMillis(Duration.fromInputUnsafe(req.timeout ?? "30 seconds"))
  const maxBytes = req.maxBytes ?? 10 * 1024 * 1024
  const headers: Record<string, string> = { connection: "close" }
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k] = Redacted.isRedacted(v) ? Redacted.value(v) : v
  if (req.body !== undefined) headers["content-length"] = String(Buffer.byteLength(req.body))
  const client = url.protocol === "https:" ? NodeHttps : url.protocol === "http:" ? NodeHttp : undefined
  if (client === undefined) return Effect.fail(failure(source, "InvalidConfig", false, `${shown}: not an http(s) URL`))
  return Effect.callback<Response, ConnectorError>((resume, signal) => {
    let done = false
    const finish = (effect: Effect.Effect<Response, ConnectorError>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(effect)
    }
    // Through the proxy: a fresh tunnel per request (the same one-socket-per-request rule); else no agent.
    const route: NodeHttp.RequestOptions =
      Proxy.proxyFor(url) === undefined
        ? { agent: false }
        : {
            createConnection: (_options, created) => {
              Proxy.connect(url, { signal }).then(
                (socket) => created(null, socket),
                (error: Error) => created(error, undefined as never)
              )
              return undefined
            }
          }
    const r = client.request(url, { method: req.method ?? "GET", headers, ...route, signal }, (res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      res.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > maxBytes) {
          r.destroy()
          finish(
            Effect.fail(failure(source, "InvalidResponse", true, `${shown}: answer larger than ${maxBytes} bytes`))
          )
        } else chunks.push(chunk)
      })
      res.on("end", () =>
        finish(
          Effect.succeed({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8")
          })
        )
      )
      res.on("error", (error) =>
        finish(Effect.fail(failure(source, "Unavailable", true, `${shown}: ${error.message}`)))
      )
    })
    const timer = setTimeout(() => {
      r.destroy()
      finish(
        Effect.fail(
          failure(
            source,
            "Timeout",
            true,
            `${shown}: no complete answer within ${Duration.format(Duration.millis(timeoutMillis))}`
          )
        )
      )
    }, timeoutMillis)
    r.on("error", (error) => finish(Effect.fail(failure(source, "Unavailable", true, `${shown}: ${error.message}`))))
    r.end(req.body)
    // Interruption (the source's scope closing): `signal` aborts the request and its socket; the timer goes too.
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true })
  })
}

/** Maps a non-2xx status to the ConnectorError a source reports. */
export const statusError = (source: string, url: string | URL, response: Response): ConnectorError => {
  const shown = redactUrl(url)
  const s = response.status
  if (s === 401 || s === 403)
    return failure(source, "Unauthorized", false, `${shown} answered ${s}: credentials refused`)
  if (s === 429) {
    const after = response.headers["retry-after"]
    return failure(
      source,
      "RateLimited",
      true,
      `${shown} answered 429${after === undefined ? "" : ` (Retry-After: ${after})`}`
    )
  }
  if (s >= 500) return failure(source, "Unavailable", true, `${shown} answered ${s}`)
  return failure(source, "InvalidResponse", true, `${shown} answered ${s}`)
}

/** GETs (or sends) a request and decodes a 2xx JSON answer with `schema`; other statuses map as {@link statusError}. */
export const getJson = <A>(
  source: string,
  schema: Schema.Codec<A, any, never, never>,
  req: Request
): Effect.Effect<A, ConnectorError> =>
  Effect.flatMap(request(source, req), (response) =>
    response.status < 200 || response.status > 299
      ? Effect.fail(statusError(source, req.url, response))
      : Schema.decodeUnknownEffect(Schema.fromJsonString(schema), { errors: "all" })(response.body).pipe(
          Effect.mapError((error) =>
            failure(source, "InvalidResponse", true, `${redactUrl(req.url)}: unexpected answer: ${error.message}`)
          )
        )
  )
