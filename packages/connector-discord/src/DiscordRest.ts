/**
 * The REST side of Discord, wrapped in Effect: a scoped `@discordjs/rest` client (sending on a pool of
 * the SDK's `Http`, closed on release, and its sweeper timers cleared) and the typed `@discordjs/core` API over it. Every call
 * becomes an Effect failing with a {@link DiscordRestError}; every answer is decoded with a Schema.
 *
 * Rate limits are left to `@discordjs/rest`: it queues per route and honours `Retry-After` on 429.
 *
 * @since 0.1.0
 */
import { API } from "@discordjs/core"
import { DiscordAPIError, HTTPError, RateLimitError, REST, type RESTOptions } from "@discordjs/rest"
import { Http } from "@warden/connector"
import { Context, Duration, Effect, Layer, Redacted, Result, Schema, type Scope } from "effect"

/**
 * A REST call failed. `status` is the HTTP status (absent for network errors and timeouts), `code`
 * Discord's JSON error code (e.g. 50013 Missing Permissions, 50001 Missing Access, 10008 Unknown Message).
 * The message never contains the token.
 */
export class DiscordRestError extends Schema.TaggedError<DiscordRestError>()("DiscordRestError", {
  operation: Schema.String,
  status: Schema.optionalKey(Schema.Number),
  code: Schema.optionalKey(Schema.Union([Schema.Number, Schema.String])),
  message: Schema.String
}) {
  /** Retrying may help: network trouble, timeouts, 429 and 5xx. */
  get retryable(): boolean {
    return this.status === undefined || this.status === 429 || this.status >= 500
  }
}

/** A REST answer did not have the expected shape; `message` names the offending fields. */
export class DiscordDecodeError extends Schema.TaggedError<DiscordDecodeError>()("DiscordDecodeError", {
  operation: Schema.String,
  message: Schema.String
}) {}

/** Options of the REST client. */
export interface Options {
  readonly token: Redacted.Redacted<string>
  /** API base without version, e.g. `https://discord.com/api`. */
  readonly apiBaseUrl: string
  readonly requestTimeout: Duration.Duration
  /** Retries of 5xx answers and network errors inside `@discordjs/rest` (default 1). */
  readonly retries?: number | undefined
}

/** The running REST client. */
export interface DiscordRestShape {
  /** The raw `@discordjs/rest` client (the gateway manager fetches `/gateway/bot` with it). */
  readonly rest: REST
  /** Calls the typed API; failures become {@link DiscordRestError}. */
  readonly call: <A>(
    operation: string,
    f: (api: API, signal: AbortSignal) => Promise<A>
  ) => Effect.Effect<A, DiscordRestError>
  /** Calls the API and decodes the answer with `schema`. */
  readonly read: <S extends Schema.Top & { readonly DecodingServices: never }>(
    operation: string,
    schema: S,
    f: (api: API, signal: AbortSignal) => Promise<unknown>
  ) => Effect.Effect<S["Type"], DiscordRestError | DiscordDecodeError>
}

/** The REST client as a service. */
export class DiscordRest extends Context.Service<DiscordRest, DiscordRestShape>()(
  "@warden/connector-discord/DiscordRest"
) {}

/** Turns whatever `@discordjs/rest` threw into a {@link DiscordRestError} (token-free message). */
export const toRestError = (operation: string, error: unknown): DiscordRestError => {
  if (error instanceof DiscordAPIError) {
    return new DiscordRestError({
      operation,
      status: error.status,
      code: error.code,
      message: `${operation}: Discord answered ${error.status} (code ${error.code}: ${error.message})`
    })
  }
  if (error instanceof HTTPError) {
    return new DiscordRestError({
      operation,
      status: error.status,
      message: `${operation}: Discord answered ${error.status} ${error.message}`
    })
  }
  if (error instanceof RateLimitError) {
    return new DiscordRestError({
      operation,
      status: 429,
      message: `${operation}: rate limited for ${error.retryAfter} ms`
    })
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return new DiscordRestError({ operation, message: `${operation}: ${message}` })
}

/**
 * The pool's `fetch` as `@discordjs/rest` types it: with the Fetch API types of its own undici (6),
 * which TypeScript tells apart from the global ones in buffer and iterator details only; what it
 * sends (JSON string bodies, header records) and reads (status, headers, `json()`) is the same API.
 */
const restFetch = (pool: Http.Pool): RESTOptions["makeRequest"] => pool.fetch as unknown as RESTOptions["makeRequest"]

/** Acquires the REST client in the scope; releasing closes its pool (sockets) and clears its sweeper timers. */
export const make = (options: Options): Effect.Effect<DiscordRestShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    // The SDK's pool (through HTTP_PROXY/HTTPS_PROXY when set, NO_PROXY honoured, as the API client
    // goes), closed with the scope; `@discordjs/rest` sends with its `fetch`.
    const pool = yield* Http.pool({ connectTimeout: options.requestTimeout })
    const rest = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new REST({
          api: options.apiBaseUrl.replace(/\/+$/u, ""),
          version: "10",
          makeRequest: restFetch(pool),
          retries: options.retries ?? 1,
          timeout: Duration.toMillis(options.requestTimeout),
          userAgentAppendix: "Warden"
        }).setToken(Redacted.value(options.token))
      ),
      (rest) =>
        Effect.sync(() => {
          rest.clearHashSweeper()
          rest.clearHandlerSweeper()
          rest.removeAllListeners()
        })
    )
    const api = new API(rest)
    // A span per REST call, with its operation (method and path: ids, never the token, the request
    // body or an answer) as an attribute.
    const call = Effect.fn("DiscordRest.call")(function* <A>(
      operation: string,
      f: (api: API, signal: AbortSignal) => Promise<A>
    ): Effect.fn.Return<A, DiscordRestError> {
      yield* Effect.annotateCurrentSpan("discord.operation", operation)
      return yield* Effect.tryPromise({
        try: (signal) => f(api, signal),
        catch: (error) => toRestError(operation, error)
      })
    })
    // A span per read: the call (its own span) and the decoding of the answer.
    const read = Effect.fn("DiscordRest.read")(function* <S extends Schema.Top & { readonly DecodingServices: never }>(
      operation: string,
      schema: S,
      f: (api: API, signal: AbortSignal) => Promise<unknown>
    ): Effect.fn.Return<S["Type"], DiscordRestError | DiscordDecodeError> {
      yield* Effect.annotateCurrentSpan("discord.operation", operation)
      const answer = yield* call(operation, f)
      const result = Schema.decodeUnknownResult(schema, { errors: "all" })(answer)
      if (Result.isSuccess(result)) return result.success
      return yield* new DiscordDecodeError({
        operation,
        message: `${operation}: unexpected answer from Discord: ${result.failure.message}`
      })
    })
    return { rest, call, read }
  })

/** Provides {@link DiscordRest} for the lifetime of the layer. */
export const layer = (options: Options): Layer.Layer<DiscordRest> => Layer.effect(DiscordRest, make(options))
