/**
 * What the Promise clients (`Warden` in `@warden/v1`, `WardenLegacy` in `@warden/legacy`) share:
 * their options (read from the environment where not given, checked in the constructor so a missing
 * key fails there, naming `apiKey` and `WARDEN_API_KEY`), and one long-lived `ManagedRuntime` per
 * client, so the limiter, the connection pool and the retry settings are shared by every call, as with
 * openai-node's one client object. Each call runs on it with its own `signal`, `timeout`,
 * `maxRetries` and `requestId`, and fails with a `WardenError` whose stack starts at the caller.
 */
import type { CallInfo } from "@warden/core/client"
import * as WardenErrors from "@warden/core/errors"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import type { Dispatcher } from "undici"
import type { ApiConfig, Input } from "./ApiConfig.ts"
import { ApiEnv } from "./ApiEnv.ts"
import { CallOptions } from "./CallOptions.ts"
import { HttpDispatcher } from "./HttpDispatcher.ts"
import { BASE_URL_ENV, REGIONS } from "./internal/regions.ts"
import { resolveSettings } from "./internal/settings.ts"
import type * as QuotaPolicy from "./QuotaPolicy.ts"
import type { RateLimiter } from "./RateLimiter.ts"
import type { KeyKind, Region } from "./Region.ts"
import type { Transport } from "./Transport.ts"

/** Where log lines go: `console` by default, or any object with these four methods (pino, winston, ...). */
export interface ClientLogger {
  readonly debug: (message: string, ...rest: Array<unknown>) => void
  readonly info: (message: string, ...rest: Array<unknown>) => void
  readonly warn: (message: string, ...rest: Array<unknown>) => void
  readonly error: (message: string, ...rest: Array<unknown>) => void
}

/** How much a client logs: `warn` by default (failover), `debug` adds one line per call. */
export type ClientLogLevel = "off" | "error" | "warn" | "info" | "debug"

/** Options of a Promise client. Everything but the key has a default; the key and URLs default to the environment. */
export interface ClientOptions {
  /** The API key. Default: `process.env.WARDEN_API_KEY`. Never logged, never in an error. */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
  /** Base URL of the region in use. Default: `WARDEN_BASE_URL` (or the region's variable). */
  readonly baseUrl?: string | undefined
  /** Base URL of each region, for failover. Default: `WARDEN_BASE_URL_US_EAST`, `WARDEN_BASE_URL_US_WEST`. */
  readonly baseUrls?: Partial<Record<Region, string>> | undefined
  /** `global` (default), `us-east` or `us-west`. */
  readonly region?: Region | undefined
  /** Regions to fail over to, in order, when `region` is down (default: none). */
  readonly failover?: ReadonlyArray<Region> | undefined
  /** `standard` (default) or `reseller`: only reseller keys may send the reseller fields. */
  readonly keyKind?: KeyKind | undefined
  /** Base URL of the legacy batch host. Default: `WARDEN_LEGACY_BASE_URL`. */
  readonly legacyBaseUrl?: string | undefined
  /** Key of the legacy host (`X-Api-Key`). Default: `WARDEN_LEGACY_API_KEY`, then `apiKey`. */
  readonly legacyApiKey?: string | Redacted.Redacted<string> | undefined
  /** Milliseconds a call may take in all, retries and limiter waits included (default 60 000). */
  readonly timeout?: number | undefined
  /** Milliseconds one attempt may take before it is abandoned and retried (default 10 000). */
  readonly attemptTimeout?: number | undefined
  /** Retries of a transient failure (503, connection, attempt timeout) after the first attempt (default 4). */
  readonly maxRetries?: number | undefined
  /** Client-side quotas per endpoint (default: none; a 429 teaches the limiter the server's). */
  readonly quotas?: QuotaPolicy.Options | undefined
  /** Appended to the `User-Agent` (e.g. `my-service/1.2`). */
  readonly userAgentSuffix?: string | undefined
  /** Log level (default `process.env.WARDEN_LOG`, else `warn`). */
  readonly logLevel?: ClientLogLevel | undefined
  /** Where log lines go (default `console`). */
  readonly logger?: ClientLogger | undefined
  /** An undici `Dispatcher` to send on (share a pool, a proxy agent); default: the client's own pool. */
  readonly dispatcher?: Dispatcher | undefined
  /** Where the defaults are read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
}

/** Options of one call. */
export interface RequestOptions {
  /** Cancels the call: it rejects with `AbortError` (the signal's reason as `cause`). */
  readonly signal?: AbortSignal | undefined
  /** Milliseconds this call may take in all (instead of the client's `timeout`): then `TimeoutError`. */
  readonly timeout?: number | undefined
  /** Retries for this call (instead of the client's `maxRetries`); 0 to never retry. */
  readonly maxRetries?: number | undefined
  /** The `x-request-id` to send (e.g. your trace id); default a random UUID. Reported on errors. */
  readonly requestId?: string | undefined
}

/** The default `timeout` of a call, retries included. */
export const DEFAULT_TIMEOUT_MILLIS = 60_000
/** The default `maxRetries`. */
export const DEFAULT_MAX_RETRIES = 4

/** Effect's log level of each client log level. */
export const LOG_LEVELS: Record<ClientLogLevel, LogLevel.LogLevel> = {
  off: "None",
  error: "Error",
  warn: "Warn",
  info: "Info",
  debug: "Debug"
}

function fail(detail: string): never {
  throw new WardenErrors.WardenConfigError(detail)
}

const checkCount = (name: string, value: number | undefined, min: number): void => {
  if (value !== undefined && !(Number.isFinite(value) && value >= min)) {
    fail(`${name} must be a number >= ${min}, got ${String(value)}`)
  }
}

const checkKey = (name: string, env: string, value: string | Redacted.Redacted<string> | undefined): void => {
  const text = value === undefined ? undefined : typeof value === "string" ? value : Redacted.value(value)
  if (text !== undefined && text.trim() === "") {
    fail(`${name} is empty: pass the key (new ${"Warden"}({ ${name}: "..." })) or set ${env}`)
  }
}

/** What a client needs of its endpoints: v1 base URLs, or only the legacy host. */
export type Needs = "v1" | "legacy"

/**
 * Checks the options and resolves them against the environment, throwing `WardenConfigError` naming
 * the option and its variable. `needs` says which base URL must be there.
 */
export const resolve = (options: ClientOptions, needs: Needs): { input: Input; logLevel: ClientLogLevel } => {
  if (typeof options !== "object" || options === null) fail("options must be an object")
  const env = options.env ?? (typeof process === "undefined" ? {} : process.env)
  const read = (name: string) => {
    const value = env[name]
    return value === undefined || value.trim() === "" ? undefined : value
  }
  checkKey("apiKey", ApiEnv.apiKey, options.apiKey)
  checkKey("legacyApiKey", ApiEnv.legacyApiKey, options.legacyApiKey)
  const apiKey = options.apiKey ?? read(ApiEnv.apiKey)
  if (apiKey === undefined) {
    fail(
      `missing API key: pass apiKey (new Warden({ apiKey })) or set the ${ApiEnv.apiKey} environment variable (server side only)`
    )
  }
  const region = options.region ?? "global"
  for (const r of [region, ...(options.failover ?? [])]) {
    if (!REGIONS.includes(r)) fail(`region ${JSON.stringify(r)} is not one of ${REGIONS.join(", ")}`)
  }
  checkCount("timeout", options.timeout, 1)
  checkCount("attemptTimeout", options.attemptTimeout, 1)
  checkCount("maxRetries", options.maxRetries, 0)
  const baseUrls: Partial<Record<Region, string>> = {}
  for (const r of REGIONS) {
    const url = options.baseUrls?.[r] ?? (r === region ? options.baseUrl : undefined) ?? read(BASE_URL_ENV[r])
    if (url !== undefined) baseUrls[r] = url
  }
  const legacyBaseUrl = options.legacyBaseUrl ?? read(ApiEnv.legacyBaseUrl)
  if (needs === "legacy" && legacyBaseUrl === undefined) {
    fail(`missing legacy base URL: pass legacyBaseUrl or set ${ApiEnv.legacyBaseUrl}`)
  }
  if (needs === "v1") {
    for (const r of [region, ...(options.failover ?? [])]) {
      if (baseUrls[r] === undefined) {
        fail(
          `missing base URL of region ${r}: pass ${r === region ? "baseUrl" : `baseUrls["${r}"]`} or set ${BASE_URL_ENV[r]}`
        )
      }
    }
  }
  const logLevel = options.logLevel ?? (read(ApiEnv.log) as ClientLogLevel | undefined) ?? "warn"
  if (!Object.hasOwn(LOG_LEVELS, logLevel)) {
    fail(`logLevel must be one of ${Object.keys(LOG_LEVELS).join(", ")}, got ${JSON.stringify(logLevel)}`)
  }
  const legacyApiKey = options.legacyApiKey ?? read(ApiEnv.legacyApiKey)
  return {
    input: {
      apiKey: typeof apiKey === "string" ? Redacted.make(apiKey, { label: ApiEnv.apiKey }) : apiKey,
      keyKind: options.keyKind,
      region,
      failover: options.failover,
      // a legacy-only client skips the v1 URL check (ApiConfig.make)
      baseUrls: needs === "legacy" ? {} : baseUrls,
      legacyBaseUrl,
      legacyApiKey:
        typeof legacyApiKey === "string" ? Redacted.make(legacyApiKey, { label: ApiEnv.legacyApiKey }) : legacyApiKey,
      timeout: options.attemptTimeout === undefined ? undefined : Duration.millis(options.attemptTimeout),
      retry: { maxAttempts: (options.maxRetries ?? DEFAULT_MAX_RETRIES) + 1 },
      quotas: options.quotas,
      userAgentSuffix: options.userAgentSuffix
    },
    logLevel
  }
}

/** The Effect-side failures a call may end with. */
type Failure = WardenErrors.Failure

/** What a client's runtime provides besides its own services. */
type Services = Transport | RateLimiter | ApiConfig

/** Why the client stopped a call's fiber, if it did. */
type StoppedBy = "abort" | "timeout" | "close"

/**
 * One client's runtime: the transport (limiter, pool, retries) built once, in the background from the
 * constructor on (a call made before it is done waits for it), and every call run on it. `close()`
 * releases the pool; calls after it reject.
 *
 * Once built, a call is one fiber forked on the built services (`Effect.runForkWith`), not a
 * `ManagedRuntime.runPromiseExit`: the managed runtime registers every fiber it starts (a `WeakSet`
 * and a finalizer in its scope, added and removed per call) and wires an `AbortSignal` through
 * event listeners. Here the client keeps its in-flight fibers in a `Set` (interrupted by `close()`),
 * and its deadline and the caller's signal interrupt the fiber directly: no `AbortController` per
 * call, and no listener at all when the caller passes no signal. At concurrency 64 that was most of
 * what a Promise call cost beyond the same call in Effect code (docs/BENCHMARKS.md).
 */
export class Runtime<R> {
  readonly #runtime: ManagedRuntime.ManagedRuntime<R | Services, never>
  #services: Context.Context<R | Services> | undefined
  readonly #inFlight = new Set<Fiber.Fiber<unknown, unknown>>()
  readonly #timeout: number
  readonly #debug: ClientLogger | undefined
  #closed = false

  /** Builds the runtime of `services` (on a `Transport`) from checked options (`resolve`). */
  constructor(
    services: Layer.Layer<R, never, Transport>,
    options: ClientOptions,
    resolved: { readonly input: Input; readonly logLevel: ClientLogLevel }
  ) {
    const config = resolveSettings(resolved.input)
    if (typeof config === "string") fail(config)
    const dispatcher =
      options.dispatcher === undefined ? HttpDispatcher.layer : HttpDispatcher.layerFrom(options.dispatcher)
    const logger = options.logger ?? console
    this.#timeout = options.timeout ?? DEFAULT_TIMEOUT_MILLIS
    this.#debug = resolved.logLevel === "debug" ? logger : undefined
    // the transport (and with it effect/Schema) is loaded when the runtime is built, not at import
    const layer = Layer.unwrap(
      Effect.promise(() => import("./internal/clientLayer.ts")).pipe(
        Effect.map(({ clientLayer }) => clientLayer(services, config, dispatcher, logger, resolved.logLevel))
      )
    )
    this.#runtime = ManagedRuntime.make(layer)
    // Start loading and building now, in the background: a service makes its client at start and
    // its first call comes later, so that call does not wait for the transport, the schemas and
    // undici (about 440 modules in all, with the import's). A failure fails each call (INTERNAL_ERROR).
    this.#runtime.context().then(
      (services) => {
        this.#services = services
      },
      () => {}
    )
  }

  /**
   * Runs one call, `call(services)`; see `RequestOptions`. Rejects with a `WardenError` whose stack
   * starts at the caller. `requests: "one"` (one HTTP request, e.g. `analyze.text`) gives it a request
   * id known before it goes, so even a timeout names it; `"many"` (a legacy batch in chunks) lets each
   * request have its own, unless the caller chose one.
   */
  async run<A>(
    endpoint: string,
    call: (services: Context.Context<R | Services>) => Effect.Effect<A, Failure, R | Services>,
    options: RequestOptions = {},
    requests: "one" | "many" = "one"
  ): Promise<A> {
    const requestId = options.requestId ?? (requests === "one" ? crypto.randomUUID() : undefined)
    const facts = { endpoint, requestId }
    if (this.#closed) throw stackFromCaller(closedError(facts, "the client was closed"))
    const signal = options.signal
    if (signal?.aborted) {
      throw stackFromCaller(
        new WardenErrors.AbortError({
          ...facts,
          attempts: 0,
          code: "ABORTED",
          detail: `${endpoint} was cancelled before it was sent`,
          cause: signal.reason
        })
      )
    }
    const timeout = options.timeout ?? this.#timeout
    const debug = this.#debug
    const started = debug === undefined ? 0 : performance.now()
    const perCall = { requestId, maxAttempts: options.maxRetries === undefined ? undefined : options.maxRetries + 1 }
    const services = this.#services
    // Before the build is done, the call's fiber waits for it: its deadline, its signal and `close()`
    // stop the wait, and a build that failed ends the call as a defect does (`INTERNAL_ERROR`).
    const fiber =
      services !== undefined
        ? Effect.runForkWith(Context.add(services, CallOptions, perCall))(call(services))
        : Effect.runFork(
            Effect.flatMap(this.#runtime.contextEffect, (built) =>
              Effect.provideContext(call(built), Context.add(built, CallOptions, perCall))
            )
          )
    const inFlight = this.#inFlight
    inFlight.add(fiber)
    let stoppedBy: StoppedBy | undefined
    const stop = (why: StoppedBy) => {
      stoppedBy ??= why
      fiber.interruptUnsafe()
    }
    const onAbort = signal === undefined ? undefined : () => stop("abort")
    if (onAbort !== undefined) signal!.addEventListener("abort", onAbort, { once: true })
    if (signal?.aborted) stop("abort")
    const timer = setTimeout(stop, timeout, "timeout")
    const exit = await new Promise<Exit.Exit<A, Failure>>((resolve) => {
      fiber.addObserver(resolve)
    })
    clearTimeout(timer)
    inFlight.delete(fiber)
    if (onAbort !== undefined) signal!.removeEventListener("abort", onAbort)
    if (Exit.isSuccess(exit)) {
      debug?.debug(`${endpoint} ok in ${(performance.now() - started).toFixed(1)} ms (request ${requestId})`)
      return exit.value
    }
    if (this.#closed && stoppedBy === undefined) stoppedBy = "close"
    const error = toWardenError(exit.cause, stoppedBy, { ...facts, timeout, signal })
    debug?.debug(`${error.message} in ${(performance.now() - started).toFixed(1)} ms`)
    throw stackFromCaller(error)
  }

  /**
   * Closes the connection pool; calls after it reject with `WardenError` code `CLIENT_CLOSED`, and so
   * do calls still in flight (interrupted, then awaited).
   */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const stopped = Array.from(
      this.#inFlight,
      (fiber) =>
        new Promise<void>((resolve) => {
          fiber.addObserver(() => resolve())
          fiber.interruptUnsafe()
        })
    )
    await Promise.all(stopped)
    await this.#runtime.dispose()
  }
}

const closedError = (facts: { endpoint: string; requestId: string | undefined }, why: string) =>
  new WardenErrors.WardenError({ ...facts, code: "CLIENT_CLOSED", detail: `${facts.endpoint}: ${why}` })

const stackFromCaller = (error: WardenErrors.WardenError): WardenErrors.WardenError => {
  // the client's own frames are hidden (and Node's tick queue, which resumed the await): the stack
  // starts at the code that made the call
  Error.captureStackTrace(error, Runtime.prototype.run)
  const lines = String(error.stack).split("\n")
  error.stack = [lines[0], ...lines.slice(1).filter((line) => !line.includes("(node:internal/"))].join("\n")
  return error
}

const toWardenError = (
  cause: Cause.Cause<Failure>,
  stoppedBy: StoppedBy | undefined,
  facts: { endpoint: string; requestId: string | undefined; timeout: number; signal: AbortSignal | undefined }
): WardenErrors.WardenError => {
  const failure = Cause.findErrorOption(cause)
  if (failure._tag === "Some") return WardenErrors.fromFailure(failure.value, facts.endpoint)
  const base = { endpoint: facts.endpoint, requestId: facts.requestId }
  if (stoppedBy === "timeout") {
    return new WardenErrors.TimeoutError({
      ...base,
      code: "TIMEOUT",
      detail: `${facts.endpoint} took longer than its timeout of ${facts.timeout} ms`
    })
  }
  if (stoppedBy === "close") return closedError(base, "the client was closed during the call")
  if (stoppedBy === "abort") {
    return new WardenErrors.AbortError({
      ...base,
      code: "ABORTED",
      detail: `${facts.endpoint} was cancelled`,
      cause: facts.signal?.reason
    })
  }
  const defect = Cause.findDefect(cause)
  return new WardenErrors.WardenError({
    ...base,
    code: "INTERNAL_ERROR",
    detail: `${facts.endpoint}: ${Cause.pretty(cause).split("\n")[0]}`,
    cause: defect._tag === "Success" ? defect.success : Cause.squash(cause)
  })
}

/** The request id and attempts of an Effect-side failure (re-exported for the clients' docs). */
export type { CallInfo }
