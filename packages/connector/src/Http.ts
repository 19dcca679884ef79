/**
 * The one outbound HTTP stack of connectors: an undici connection pool that goes through the proxy
 * the environment names (`HTTP_PROXY`/`HTTPS_PROXY`, `NO_PROXY` honoured, read by
 * `@warden/core/proxy` as the API client reads them), with effect's `HttpClient` on top of it.
 *
 * - {@link client} / {@link layer}: an `HttpClient` (`effect/http`) on a pool of its own, closed with
 *   the scope, so no socket outlives the source that made it (the conformance kit's `cleanShutdown`).
 *   Redirects are answers, not followed (`HttpClient.followRedirects` follows them); bodies come
 *   decompressed (gzip, deflate, br).
 * - {@link pool}: the pool and a `fetch` that sends on it, for a library that takes one (a `fetch`,
 *   or an undici `Dispatcher`).
 * - {@link request} / {@link getJson}: one request on a pool of its own, closed when it ends; failures
 *   are `ConnectorError`s with the reason a source needs: `Unavailable` (connection refused, reset,
 *   a proxy's refusal, 5xx), `Timeout`, `RateLimited` (429, with the `Retry-After` in the message),
 *   `Unauthorized` (401/403, not retryable), `InvalidResponse` (an answer too large or not matching the
 *   schema). URLs in messages are redacted (no credentials, no query string).
 *
 * ```ts
 * const items = yield* Http.getJson("hn", Items, { url: `${config.url}?after=${after}`, timeout: "10 seconds" })
 * const http = yield* Http.client({ userAgent: "my-connector/1.0" }) // in the source's scope
 * ```
 *
 * undici is imported when the first pool is made, not with this module: the daemon loads the SDK
 * whether or not a connector sends HTTP, and undici's index is about a hundred modules.
 *
 * @since 0.2.0
 */
import type * as NodeHttp from "node:http"
import * as OutboundProxy from "@warden/core/proxy"
import { Data, Duration, Effect, Layer, Redacted, Schema, type Scope, Stream } from "effect"
import { FetchHttpClient, HttpBody, HttpClient, HttpClientRequest, HttpMethod } from "effect/http"
import type { Dispatcher } from "undici"
import { ConnectorError, redactUrl } from "./ConnectorError.ts"

/** Settings of a pool. */
export interface PoolOptions {
  /** Time to open a connection, the proxy's tunnel included (default 10 seconds). */
  readonly connectTimeout?: Duration.Input | undefined
  /** Connections kept per origin (default: as many as requests need). */
  readonly connections?: number | undefined
  /** Where the proxy variables are read (default `process.env`). */
  readonly env?: OutboundProxy.Env | undefined
}

/** Settings of a client: its pool's, and the `User-Agent` of requests that set none. */
export interface ClientOptions extends PoolOptions {
  readonly userAgent?: string | undefined
}

/** A connection pool and the `fetch` that sends on it (redirects followed, as `fetch` does). */
export interface Pool {
  readonly dispatcher: Dispatcher
  readonly fetch: typeof globalThis.fetch
}

type Undici = typeof import("undici")

/**
 * undici 8's `fetch` as the global `fetch` type: `@types/node` declares that one with undici 7's
 * types, whose `Response`, `Headers` and `BodyInit` differ from 8's only in iterator and buffer details.
 */
const asGlobalFetch = (
  f: (input: URL | string | globalThis.Request, init?: Parameters<Undici["fetch"]>[1]) => ReturnType<Undici["fetch"]>
) => f as unknown as typeof globalThis.fetch
let undici: Promise<Undici> | undefined
const loadUndici = (): Promise<Undici> => (undici ??= import("undici"))

/** A pool of the stack, destroyed (its sockets closed) when the scope closes. */
export const pool = (options: PoolOptions = {}): Effect.Effect<Pool, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.map(Effect.promise(loadUndici), (u): Pool => {
      const agentOptions = {
        connect: { timeout: Duration.toMillis(Duration.fromInputUnsafe(options.connectTimeout ?? "10 seconds")) },
        ...(options.connections === undefined ? {} : { connections: options.connections })
      }
      const proxy = OutboundProxy.agentOptions(options.env)
      const dispatcher: Dispatcher =
        proxy === undefined ? new u.Agent(agentOptions) : new u.EnvHttpProxyAgent({ ...agentOptions, ...proxy })
      // undici's own `fetch` (the one undici of the workspace), on this pool: the global `fetch` is
      // Node's bundled undici, another release, whose `Request` undici 8 does not take: its parts are
      // handed over instead.
      const fetch = asGlobalFetch((input, init) =>
        input instanceof globalThis.Request
          ? u.fetch(input.url, {
              method: input.method,
              headers: [...input.headers],
              body: input.body,
              signal: input.signal,
              duplex: "half",
              ...init,
              dispatcher
            })
          : u.fetch(input, { ...init, dispatcher })
      )
      return { dispatcher, fetch }
    }),
    ({ dispatcher }) => Effect.promise(() => dispatcher.destroy().catch(() => undefined))
  )

/** effect's `HttpClient` on `pool` (redirects not followed), with `userAgent` on requests that set none. */
export const clientOn = (
  pool: Pool,
  options: { readonly userAgent?: string | undefined } = {}
): Effect.Effect<HttpClient.HttpClient> =>
  Effect.gen(function* () {
    return yield* HttpClient.HttpClient
  }).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(FetchHttpClient.Fetch, pool.fetch),
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
    Effect.map((client) => {
      const userAgent = options.userAgent
      return userAgent === undefined
        ? client
        : HttpClient.mapRequest(client, (request) =>
            request.headers["user-agent"] === undefined
              ? HttpClientRequest.setHeader(request, "user-agent", userAgent)
              : request
          )
    })
  )

/** An `HttpClient` on a pool of its own, closed with the scope. */
export const client = (options: ClientOptions = {}): Effect.Effect<HttpClient.HttpClient, never, Scope.Scope> =>
  Effect.flatMap(pool(options), (p) => clientOn(p, options))

/** {@link client} as a layer: the pool lives as long as the layer. */
export const layer = (options: ClientOptions = {}): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(HttpClient.HttpClient, client(options))

/** A body was larger than the reader allowed; what came after `maxBytes` was not read. */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly maxBytes: number }> {}

/** The bytes of a body (`response.stream`), failing with {@link BodyTooLarge} as soon as more than `maxBytes` came. */
export const readBody = <E, R>(
  body: Stream.Stream<Uint8Array, E, R>,
  maxBytes: number
): Effect.Effect<Uint8Array, E | BodyTooLarge, R> =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    return Stream.runForEach(body, (chunk) => {
      size += chunk.length
      if (size > maxBytes) return Effect.fail(new BodyTooLarge({ maxBytes }))
      chunks.push(chunk)
      return Effect.void
    }).pipe(Effect.map(() => Buffer.concat(chunks)))
  })

const TLS_CODE = /^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)_)/u

/** The errors an `HttpClientError` / `fetch failed` was made from, outermost first. */
const causes = (error: unknown): ReadonlyArray<unknown> => {
  const chain = [error]
  for (let current = error; chain.length < 8 && current instanceof Error && current.cause !== undefined; ) {
    current = current.cause
    chain.push(current)
  }
  return chain
}

const codeOf = (error: unknown): string | undefined => {
  const code = (error as Partial<NodeJS.ErrnoException> | undefined)?.code
  return typeof code === "string" ? code : undefined
}

/**
 * One line an operator can act on for a request to `url` that got no answer: the code alone
 * (`EPROTO`) says little, so Node's sentence is kept (its first line: OpenSSL appends a multi-line
 * trace), a TLS failure says it is one, and a proxy's refusal names the proxy (never its credentials).
 */
export const failureMessage = (url: string | URL, error: unknown, env?: OutboundProxy.Env): string => {
  const chain = causes(error)
  const cause = chain.at(-1)
  const first = (String(cause instanceof Error ? cause.message : cause).split("\n")[0] ?? "").trim()
  const code = codeOf(cause)
  const target = new URL(url)
  const proxy = OutboundProxy.proxyFor(target, env)
  const viaProxy = proxy === undefined ? "proxy" : `proxy ${OutboundProxy.shown(proxy)}`
  const refused = /^Proxy response \((\d+)\)/u.exec(first)
  if (refused !== null)
    return `${viaProxy}: CONNECT ${target.hostname}:${OutboundProxy.portOf(target)} refused: ${refused[1]}`
  const text = code === undefined || first.includes(code) ? first : `${code}: ${first}`
  const described = code !== undefined && TLS_CODE.test(code) ? `TLS handshake failed: ${text}` : text
  return chain.some((e) => codeOf(e)?.startsWith("UND_ERR_PRX_")) ? `${viaProxy}: ${described}` : described
}

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

/**
 * Sends one request on a pool of its own (closed once the answer is read, so no socket stays open)
 * and reads the whole answer; any status is a success here (see {@link getJson}).
 */
export const request = (source: string, req: Request): Effect.Effect<Response, ConnectorError> => {
  const url = new URL(req.url)
  const shown = redactUrl(url)
  const timeout = Duration.fromInputUnsafe(req.timeout ?? "30 seconds")
  const maxBytes = req.maxBytes ?? 10 * 1024 * 1024
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return Effect.fail(failure(source, "InvalidConfig", false, `${shown}: not an http(s) URL`))
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k] = Redacted.isRedacted(v) ? Redacted.value(v) : v
  const method = (req.method ?? "GET").toUpperCase()
  if (!HttpMethod.isHttpMethod(method))
    return Effect.fail(failure(source, "InvalidConfig", false, `${shown}: ${method} is not an HTTP method`))
  const outgoing = HttpClientRequest.make(method)(url, {
    headers,
    ...(req.body === undefined ? {} : { body: HttpBody.raw(req.body) })
  })
  return Effect.gen(function* () {
    const http = yield* client()
    const response = yield* http
      .execute(outgoing)
      .pipe(Effect.mapError((error) => failure(source, "Unavailable", true, `${shown}: ${failureMessage(url, error)}`)))
    const body = yield* readBody(response.stream, maxBytes).pipe(
      Effect.mapError((error) =>
        error._tag === "BodyTooLarge"
          ? failure(source, "InvalidResponse", true, `${shown}: answer larger than ${maxBytes} bytes`)
          : failure(source, "Unavailable", true, `${shown}: ${failureMessage(url, error)}`)
      )
    )
    return { status: response.status, headers: response.headers, body: Buffer.from(body).toString("utf8") }
  }).pipe(
    Effect.scoped,
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.fail(failure(source, "Timeout", true, `${shown}: no complete answer within ${Duration.format(timeout)}`))
    })
  )
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
