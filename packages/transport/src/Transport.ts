/**
 * The one way a Warden client talks to the API. `Transport.send` takes an endpoint and the exact body
 * text and returns the exact answer text, or a typed failure; on the way it adds the headers
 * (`Authorization: ApiKey <key>` or, for legacy, `X-Api-Key`; `Content-Type`, `User-Agent`,
 * `x-request-id`), waits for the client-side limiter, applies the per-attempt timeout, retries only
 * what may be retried, fails over between regions, and records spans and metrics. It never re-encodes
 * a body: what `send` is given is byte-for-byte what goes on the wire.
 */
import { NodeHttpClient } from "@effect/platform-node"
import {
  type ApiError,
  decodeApiError,
  type EndpointName,
  PATHS,
  type ResponseDecodeError,
  TransportError
} from "@warden/core"
import { Clock, Context, Duration, Effect, Layer, Redacted, type Config } from "effect"
import { ApiConfig, type ApiConfigError, type Input, type Overrides } from "./ApiConfig.ts"
import { fromCause } from "./internal/errors.ts"
import { RateLimiter } from "./RateLimiter.ts"
import { BASE_URL_ENV, type Region } from "./Region.ts"
import * as RegionPolicy from "./RegionPolicy.ts"
import * as RetryPolicy from "./RetryPolicy.ts"
import * as Telemetry from "./Telemetry.ts"

/** One call: which endpoint, and the exact JSON text of the body. */
export interface Request {
  readonly endpoint: EndpointName
  readonly body: string
}

/** A successful (2xx) answer. */
export interface Response {
  readonly status: number
  /** The exact text of the answer. */
  readonly body: string
  /** Where it came from: a region, or `legacy`. */
  readonly region: Region | "legacy"
  /** Attempts made, over every region tried. */
  readonly attempts: number
  /** The `x-request-id` sent (the same on every attempt of the call). */
  readonly requestId: string
}

/** Why a call failed: the API's answer, no answer, or an answer that is not the contract's. */
export type Failure = ApiError | TransportError | ResponseDecodeError

/** Shape of the transport. */
export interface Shape {
  /** Sends one call (with retries, limiter and failover). */
  readonly send: (request: Request) => Effect.Effect<Response, Failure>
  /** The resolved settings in use. */
  readonly config: ApiConfig["Service"]
}

/** The label of an endpoint in errors: method and path. */
export const endpointLabel = (endpoint: EndpointName): string => `POST ${PATHS[endpoint]}`

interface Target {
  readonly region: Region | "legacy"
  readonly url: string
  readonly headers: Record<string, string>
}

const TIMED_OUT = Symbol("timed out")

/** Builds the transport on an undici `Dispatcher` (`NodeHttpClient.Dispatcher`, shareable with other clients). */
export const make: Effect.Effect<Shape, never, ApiConfig | RateLimiter | NodeHttpClient.Dispatcher> = Effect.gen(
  function* () {
    const config = yield* ApiConfig
    const limiter = yield* RateLimiter
    const dispatcher = yield* NodeHttpClient.Dispatcher
    const regions = RegionPolicy.makeState(config.regions)
    const timeoutMillis = Duration.toMillis(config.timeout)
    const common = { accept: "application/json", "content-type": "application/json", "user-agent": config.userAgent }

    const targetOf = (endpoint: EndpointName, region: Region | "legacy"): Effect.Effect<Target, TransportError> => {
      if (region === "legacy") {
        if (config.legacyBaseUrl === undefined) {
          return Effect.fail(
            new TransportError({
              endpoint: endpointLabel(endpoint),
              reason: "Other",
              detail: "no legacy base URL configured (WARDEN_LEGACY_BASE_URL)"
            })
          )
        }
        return Effect.succeed({
          region,
          url: config.legacyBaseUrl + PATHS[endpoint],
          headers: { ...common, "x-api-key": Redacted.value(config.legacyApiKey) }
        })
      }
      const baseUrl = config.baseUrls[region]
      if (baseUrl === undefined) {
        return Effect.fail(
          new TransportError({
            endpoint: endpointLabel(endpoint),
            reason: "Other",
            detail: `no base URL configured for region ${region} (${BASE_URL_ENV[region]})`
          })
        )
      }
      return Effect.succeed({
        region,
        url: baseUrl + PATHS[endpoint],
        headers: { ...common, authorization: `ApiKey ${Redacted.value(config.apiKey)}` }
      })
    }

    /** One HTTP attempt on the undici dispatcher, timed out as a whole (headers and body). */
    const attemptOnce = (request: Request, target: Target, requestId: string, attempt: number) => {
      const label = endpointLabel(request.endpoint)
      const url = new URL(target.url)
      const headers = { ...target.headers, "x-request-id": requestId }
      return Effect.gen(function* () {
        const start = yield* Clock.currentTimeMillis
        const result = yield* Effect.result(
          Effect.tryPromise({
            try: async (signal) => {
              const timeout = AbortSignal.timeout(timeoutMillis)
              try {
                const response = await dispatcher.request({
                  origin: url.origin,
                  path: url.pathname + url.search,
                  method: "POST",
                  headers,
                  body: request.body,
                  signal: AbortSignal.any([signal, timeout])
                })
                return { status: response.statusCode, body: await response.body.text() }
              } catch (cause) {
                throw timeout.aborted ? TIMED_OUT : cause
              }
            },
            catch: (cause) =>
              cause === TIMED_OUT
                ? new TransportError({
                    endpoint: label,
                    reason: "Timeout",
                    detail: `no complete answer in ${timeoutMillis} ms`
                  })
                : fromCause(label, cause)
          })
        )
        const seconds = ((yield* Clock.currentTimeMillis) - start) / 1000
        const status = result._tag === "Success" ? String(result.success.status) : "none"
        yield* Telemetry.recordAttempt(request.endpoint, target.region, status, seconds)
        if (result._tag === "Failure") return yield* Effect.fail<Failure>(result.failure)
        const { status: code, body } = result.success
        yield* Effect.annotateCurrentSpan("http.response.status_code", code)
        if (code >= 200 && code < 300) return { status: code, body }
        return yield* Effect.fail<Failure>(decodeApiError(label, code, body))
      }).pipe(
        Effect.withSpan("Transport.attempt", {
          attributes: {
            "warden.endpoint": request.endpoint,
            "warden.region": target.region,
            "warden.attempt": attempt,
            "http.request.method": "POST",
            "url.path": url.pathname
          }
        })
      )
    }

    /** Every attempt in one region: retries what may be retried, within the budgets. */
    const inRegion = (request: Request, target: Target, requestId: string, counter: { attempts: number }) =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        for (let attempt = 1; ; attempt++) {
          const waited = yield* limiter.acquire(request.endpoint)
          yield* Telemetry.recordLimiterWait(request.endpoint, waited)
          counter.attempts++
          const result = yield* Effect.result(attemptOnce(request, target, requestId, counter.attempts))
          if (result._tag === "Success") return result.success
          const error = result.failure
          if (error._tag === "QuotaError") yield* limiter.penalize(request.endpoint, error.violations)
          if (!RetryPolicy.isRetryable(error)) return yield* Effect.fail(error)
          const delay = RetryPolicy.delayMillis(config.retry, attempt)
          const elapsed = (yield* Clock.currentTimeMillis) - started
          if (!RetryPolicy.mayRetry(config.retry, attempt, elapsed, delay)) return yield* Effect.fail(error)
          yield* Telemetry.recordRetry(
            request.endpoint,
            error._tag === "TransportError" ? error.reason : error.error.code
          )
          yield* Effect.sleep(Duration.millis(delay))
        }
      })

    const send = Effect.fn("Transport.send")(function* (request: Request) {
      const requestId = crypto.randomUUID()
      yield* Effect.annotateCurrentSpan({ "warden.endpoint": request.endpoint, "warden.request_id": requestId })
      const plan: ReadonlyArray<Region | "legacy"> =
        request.endpoint === "legacyAnalyze" ? ["legacy"] : yield* regions.plan
      const counter = { attempts: 0 }
      let failure: Failure | undefined
      for (let i = 0; i < plan.length; i++) {
        const region = plan[i]!
        const target = yield* targetOf(request.endpoint, region).pipe(
          Effect.tapError((e) => Telemetry.recordError(request.endpoint, Telemetry.errorCode(e)))
        )
        const result = yield* Effect.result(inRegion(request, target, requestId, counter))
        if (result._tag === "Success") {
          yield* Effect.annotateCurrentSpan({
            "warden.region": region,
            "warden.attempts": counter.attempts,
            "http.response.status_code": result.success.status
          })
          return { ...result.success, region, attempts: counter.attempts, requestId } satisfies Response
        }
        failure = result.failure
        const next = plan[i + 1]
        const down = failure._tag === "TransportError" || failure._tag === "TransientError"
        if (next === undefined || !down || region === "legacy") break
        yield* regions.markDown(region)
        yield* Telemetry.recordFailover(region, next)
        yield* Effect.logWarning(
          `${endpointLabel(request.endpoint)}: region ${region} is down, failing over to ${next}`
        )
      }
      const error = failure!
      const code = Telemetry.errorCode(error)
      yield* Effect.annotateCurrentSpan({ "warden.attempts": counter.attempts, "warden.error.code": code })
      yield* Telemetry.recordError(request.endpoint, code)
      return yield* Effect.fail(error)
    })

    return { send, config }
  }
)

/** The transport service. */
export class Transport extends Context.Service<Transport, Shape>()("@warden/transport/Transport") {
  /** On the `ApiConfig`, `RateLimiter` and undici `Dispatcher` provided. */
  static readonly layerNoDeps: Layer.Layer<Transport, never, ApiConfig | RateLimiter | NodeHttpClient.Dispatcher> =
    Layer.effect(Transport, make)
  /** On a given `Dispatcher` and `ApiConfig`, with its own limiter (one per layer instance: share the layer). */
  static readonly layer: Layer.Layer<Transport | RateLimiter, never, ApiConfig | NodeHttpClient.Dispatcher> =
    Transport.layerNoDeps.pipe(Layer.provideMerge(RateLimiter.layer))
  /** On its own undici `Agent` (keep-alive connection pool), with its own limiter. */
  static readonly layerUndici: Layer.Layer<Transport | RateLimiter, never, ApiConfig> = Transport.layer.pipe(
    Layer.provide(NodeHttpClient.layerDispatcher)
  )
  /** Settings built in code, on undici: the usual way to build a client. */
  static readonly layerOptions = (input: Input): Layer.Layer<Transport | RateLimiter | ApiConfig, ApiConfigError> =>
    Transport.layerUndici.pipe(Layer.provideMerge(ApiConfig.layer(input)))
  /** Settings from the environment (`ApiConfig.fromEnv`), on undici. */
  static readonly layerConfig = (
    overrides: Overrides = {}
  ): Layer.Layer<Transport | RateLimiter | ApiConfig, ApiConfigError | Config.ConfigError> =>
    Transport.layerUndici.pipe(Layer.provideMerge(ApiConfig.layerConfig(overrides)))
}
