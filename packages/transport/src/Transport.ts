/**
 * The one way a Warden client talks to the API. `Transport.send` takes an endpoint and the exact body
 * text and returns the exact answer text, or a typed failure; on the way it adds the headers
 * (`Authorization: ApiKey <key>` or, for legacy, `X-Api-Key`; `Content-Type`, `User-Agent`,
 * `x-request-id`), waits for the client-side limiter, applies the per-attempt timeout, retries only
 * what may be retried, fails over between regions, and records spans and metrics. It never re-encodes
 * a body: what `send` is given is byte-for-byte what goes on the wire.
 */
import type { Dispatcher } from "undici"
import {
  type ApiError,
  attachCallInfo,
  decodeApiError,
  type EndpointName,
  endpointLabel,
  PATHS,
  type ResponseDecodeError,
  TransportError
} from "@warden/core/client"
import * as Clock from "effect/Clock"
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { CallOptions } from "./CallOptions.ts"
import { ApiConfig, type ApiConfigError, type Input, type Overrides } from "./ApiConfig.ts"
import { HttpDispatcher } from "./HttpDispatcher.ts"
import { fromCause } from "./internal/errors.ts"
import { RateLimiter, type Ticket } from "./RateLimiter.ts"
import { BASE_URL_ENV, type Region } from "./Region.ts"
import * as RegionPolicy from "./RegionPolicy.ts"
import * as RetryPolicy from "./RetryPolicy.ts"
import * as Telemetry from "./Telemetry.ts"

/** Settings of the calls made under it (per-request `maxRetries` and `requestId`). */
export { CallOptions } from "./CallOptions.ts"
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
  /** Sends one call (with retries, limiter and failover), in its own `Transport.send` span. */
  readonly send: (request: Request) => Effect.Effect<Response, Failure>
  /**
   * `send` without a span of its own: the call's attributes and retry events go on the current span.
   * For clients whose public method already is the call's span (`AnalyzeV1.text`, ...): a span costs
   * about as much as the rest of the client's work per call.
   */
  readonly sendInCurrentSpan: (request: Request) => Effect.Effect<Response, Failure>
  /** The resolved settings in use. */
  readonly config: ApiConfig["Service"]
}

/** The label of an endpoint in errors: method and path. */
export { endpointLabel } from "@warden/core/endpoints"

interface Target {
  readonly region: Region | "legacy"
  readonly origin: string
  readonly path: string
  readonly headers: Record<string, string>
}

const targetAt = (
  region: Region | "legacy",
  baseUrl: string,
  path: string,
  headers: Record<string, string>
): Target => {
  const url = new URL(baseUrl + path)
  return { region, origin: url.origin, path: url.pathname + url.search, headers }
}

const LEGACY_PLAN: ReadonlyArray<"legacy"> = ["legacy"]

/** Where an attempt's limiter ticket is kept: given to it, or taken by it as it goes (`attemptOnce`). */
interface TicketSlot {
  ticket: Ticket | undefined
}

/** Builds the transport on an undici `Dispatcher` (`HttpDispatcher`, shareable with other clients). */
export const make: Effect.Effect<Shape, never, ApiConfig | RateLimiter | HttpDispatcher> = Effect.gen(function* () {
  const config = yield* ApiConfig
  const limiter = yield* RateLimiter
  const dispatcher = yield* HttpDispatcher
  const regions = RegionPolicy.makeState(config.regions)
  const timeoutMillis = Duration.toMillis(config.timeout)
  const common = { accept: "application/json", "content-type": "application/json", "user-agent": config.userAgent }

  const targets = new Map<EndpointName, Map<Region | "legacy", Result.Result<Target, TransportError>>>()
  /** Where a call to `endpoint` in `region` goes, built once (URL parsed, headers with the key). */
  const targetOf = (endpoint: EndpointName, region: Region | "legacy"): Result.Result<Target, TransportError> => {
    let byRegion = targets.get(endpoint)
    if (byRegion === undefined) {
      byRegion = new Map()
      targets.set(endpoint, byRegion)
    }
    let target = byRegion.get(region)
    if (target === undefined) {
      target = buildTarget(endpoint, region)
      byRegion.set(region, target)
    }
    return target
  }
  const buildTarget = (endpoint: EndpointName, region: Region | "legacy"): Result.Result<Target, TransportError> => {
    const missing = (detail: string) =>
      Result.fail(new TransportError({ endpoint: endpointLabel(endpoint), reason: "Other", detail }))
    if (region === "legacy") {
      if (config.legacyBaseUrl === undefined) return missing("no legacy base URL configured (WARDEN_LEGACY_BASE_URL)")
      return Result.succeed(
        targetAt(region, config.legacyBaseUrl, PATHS[endpoint], {
          ...common,
          "x-api-key": Redacted.value(config.legacyApiKey)
        })
      )
    }
    const baseUrl = config.baseUrls[region]
    if (baseUrl === undefined) {
      return missing(`no base URL configured for region ${region} (${BASE_URL_ENV[region]})`)
    }
    return Result.succeed(
      targetAt(region, baseUrl, PATHS[endpoint], {
        ...common,
        authorization: `ApiKey ${Redacted.value(config.apiKey)}`
      })
    )
  }
  const pinnedPlan = config.regions._tag === "Pinned" ? [config.regions.region] : undefined

  /**
   * One HTTP attempt, on undici's low-level `dispatch`: the answer's bytes are collected as they come
   * (no body stream), the timeout is undici's own (`headersTimeout` for the answer to start,
   * `bodyTimeout` between body chunks: for a JSON answer, the whole call) on its shared timers, and
   * interrupting the fiber aborts the request through the dispatch controller. Nothing per call but
   * the request itself: no timer, abort controller or stream. The attempt's metrics are recorded
   * here, synchronously. A 2xx answer succeeds; any other is decoded as the API error it is.
   *
   * The limiter's ticket (`slot.ticket`) is settled here, synchronously, when the answer ends, fails
   * or the attempt is interrupted (once: `settleUnsafe` ignores a second time). With none in the slot,
   * one is taken (and put there) as the request goes, if the limiter lets it go without waiting; if
   * not, nothing is sent and the answer is `undefined` (the fast path then takes the general one).
   * Taking it here, in the same synchronous step as the dispatch, leaves no point where an
   * interruption could lose it.
   */
  const attemptOnce = (
    request: Request,
    target: Target,
    headers: Record<string, string>,
    context: Context.Context<never>,
    slot: TicketSlot
  ): Effect.Effect<{ status: number; body: string } | undefined, Failure> =>
    Effect.callback((resume) => {
      const clock = Context.get(context, Clock.Clock)
      const ticket = slot.ticket ?? limiter.tryAcquireUnsafe(request.endpoint, clock.currentTimeMillisUnsafe())
      if (ticket === undefined) {
        resume(Effect.succeed(undefined))
        return
      }
      slot.ticket = ticket
      const label = endpointLabel(request.endpoint)
      const start = clock.monotonicTimeNanosUnsafe()
      let controller: Dispatcher.DispatchController | undefined
      let status = 0
      const chunks: Array<Buffer> = []
      const record = (outcome: string) =>
        Telemetry.recordAttemptUnsafe(
          context,
          request.endpoint,
          target.region,
          outcome,
          Number(clock.monotonicTimeNanosUnsafe() - start) / 1e9
        )
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: "POST",
          headers,
          body: request.body,
          headersTimeout: timeoutMillis,
          bodyTimeout: timeoutMillis
        },
        {
          onRequestStart: (c) => {
            controller = c
          },
          onResponseStart: (_, statusCode) => {
            status = statusCode
          },
          onResponseData: (_, chunk) => {
            chunks.push(chunk)
          },
          onResponseEnd: () => {
            record(String(status))
            const accepted = status >= 200 && status < 300
            // the answer tells the limiter the server has counted the request (see RateLimiter)
            limiter.settleUnsafe(ticket, accepted, clock.currentTimeMillisUnsafe())
            const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8")
            resume(accepted ? Effect.succeed({ status, body }) : Effect.fail(decodeApiError(label, status, body)))
          },
          onResponseError: (_, error) => {
            record("none")
            limiter.settleUnsafe(ticket, false, clock.currentTimeMillisUnsafe())
            resume(Effect.fail(fromCause(label, error, timeoutMillis)))
          }
        }
      )
      return Effect.sync(() => {
        controller?.abort(new Error("interrupted"))
        limiter.settleUnsafe(ticket, false, clock.currentTimeMillisUnsafe())
      })
    })

  /** The call's `stop` (CallOptions) is done: it starts no new attempt. */
  const isStopped = (stop: Deferred.Deferred<void> | undefined): boolean =>
    stop !== undefined && Deferred.isDoneUnsafe(stop)

  /**
   * `wait` (the limiter, a retry's delay) unless the call's `stop` (CallOptions) completes first: then
   * the call ends interrupted, having started nothing new.
   */
  const untilStopped = <A>(stop: Deferred.Deferred<void> | undefined, wait: Effect.Effect<A>): Effect.Effect<A> => {
    if (stop === undefined) return wait
    if (isStopped(stop)) return Effect.interrupt
    return Effect.flatMap(
      Effect.raceFirst(Effect.map(wait, Result.succeed), Effect.as(Deferred.await(stop), Result.fail(undefined))),
      (waited) => (Result.isSuccess(waited) ? Effect.succeed(waited.success) : Effect.interrupt)
    )
  }

  /**
   * The general path: limiter, retries, failover. `first` is what the fast path already did: an
   * attempt that failed (with its ticket), or none (the limiter had no room for it without waiting).
   */
  const sendGeneral = Effect.fnUntraced(function* (
    request: Request,
    first?: { readonly requestId: string; readonly failure?: Failure; readonly ticket?: Ticket | undefined }
  ) {
    const context = yield* Effect.context<never>()
    const options = Context.get(context, CallOptions)
    const requestId = first?.requestId ?? options.requestId ?? crypto.randomUUID()
    const retry =
      options.maxAttempts === undefined ? config.retry : { ...config.retry, maxAttempts: options.maxAttempts }
    let pending = first?.failure
    const plan: ReadonlyArray<Region | "legacy"> =
      request.endpoint === "legacyAnalyze" ? LEGACY_PLAN : (pinnedPlan ?? (yield* regions.plan))
    let ticket = first?.ticket
    let attempts = 0
    let failure: Failure | undefined
    for (let i = 0; i < plan.length; i++) {
      const region = plan[i]!
      const target = targetOf(request.endpoint, region)
      if (Result.isFailure(target)) {
        failure = target.failure
        break
      }
      const headers = { ...target.success.headers, "x-request-id": requestId }
      const started = yield* Clock.currentTimeMillis
      for (let attempt = 1; ; attempt++) {
        attempts++
        let result: Result.Result<{ status: number; body: string } | undefined, Failure>
        if (pending === undefined) {
          if (isStopped(options.stop)) return yield* Effect.interrupt
          const slot: TicketSlot = { ticket: undefined }
          // only the limiter's wait and the attempt are interruptible: a ticket taken is always settled
          result = yield* Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(restore(untilStopped(options.stop, limiter.acquire(request.endpoint))), (taken) => {
              slot.ticket = taken
              Telemetry.recordLimiterWaitUnsafe(context, request.endpoint, taken.waited)
              return Effect.ensuring(
                Effect.result(restore(attemptOnce(request, target.success, headers, context, slot))),
                limiter.settle(taken, false)
              )
            })
          )
          ticket = slot.ticket
        } else {
          result = Result.fail(pending)
          pending = undefined
        }
        if (Result.isSuccess(result) && result.success !== undefined) {
          yield* Effect.annotateCurrentSpan({
            "warden.endpoint": request.endpoint,
            "warden.request_id": requestId,
            "warden.region": region,
            "warden.attempts": attempts,
            "http.response.status_code": result.success.status
          })
          return { ...result.success, region, attempts, requestId } satisfies Response
        }
        // (an attempt given its ticket always sends: `undefined` is only the fast path's "no room")
        const error = Result.isFailure(result) ? result.failure : undefined
        if (error === undefined) continue
        failure = error
        // learnt even when no rate is configured: the 429 names the quota
        if (error._tag === "QuotaError" && ticket !== undefined) yield* limiter.penalize(ticket, error.violations)
        if (!RetryPolicy.isRetryable(error)) break
        const delay = RetryPolicy.delayMillis(retry, attempt)
        const now = yield* Clock.currentTimeMillis
        if (!RetryPolicy.mayRetry(retry, attempt, now - started, delay)) break
        const reason = error._tag === "TransportError" ? error.reason : error.error.code
        Telemetry.recordRetryUnsafe(context, request.endpoint, reason)
        const at = yield* Clock.currentTimeNanos
        yield* Effect.currentSpan.pipe(
          Effect.tap((span) =>
            Effect.sync(() =>
              span.event("retry", at, {
                "warden.attempt": attempts,
                "warden.region": region,
                "warden.retry.reason": reason,
                "warden.retry.delay_ms": delay
              })
            )
          ),
          Effect.ignore
        )
        yield* untilStopped(options.stop, Effect.sleep(Duration.millis(delay)))
      }
      const next = plan[i + 1]
      const down = failure._tag === "TransportError" || failure._tag === "TransientError"
      if (next === undefined || !down || region === "legacy") break
      yield* regions.markDown(region)
      Telemetry.recordFailoverUnsafe(context, region, next)
      yield* Effect.logWarning(`${endpointLabel(request.endpoint)}: region ${region} is down, failing over to ${next}`)
    }
    const error = failure!
    const code = Telemetry.errorCode(error)
    yield* Effect.annotateCurrentSpan({
      "warden.endpoint": request.endpoint,
      "warden.request_id": requestId,
      "warden.attempts": attempts,
      "warden.error.code": code
    })
    Telemetry.recordErrorUnsafe(context, request.endpoint, code)
    return yield* Effect.fail(attachCallInfo(error, { requestId, attempts }))
  })

  /**
   * The common case in as few steps as possible: a pinned region, and an endpoint in slow start with
   * room in its window (no rate to wait for: `RateLimiter.tryAcquireUnsafe`), and a first attempt that
   * succeeds. Anything else continues on the general path from where it stands. Whether the limiter
   * lets the call go is decided when the effect runs (as the request goes), never when it is built:
   * an effect built before a 429 taught the limiter the quota and run (or run again, as the daemon
   * does with a refused item) after it waits for the limiter like any other.
   */
  const sendUntraced = (request: Request): Effect.Effect<Response, Failure> => {
    if (pinnedPlan === undefined || request.endpoint === "legacyAnalyze") return sendGeneral(request)
    const region = pinnedPlan[0]!
    const target = targetOf(request.endpoint, region)
    if (Result.isFailure(target)) return sendGeneral(request)
    return Effect.withFiber((fiber) => {
      const options = Context.get(fiber.context, CallOptions)
      // stopped before it started: nothing is sent
      if (isStopped(options.stop)) return Effect.interrupt
      const requestId = options.requestId ?? crypto.randomUUID()
      const headers = { ...target.success.headers, "x-request-id": requestId }
      const slot: TicketSlot = { ticket: undefined }
      return Effect.matchEffect(attemptOnce(request, target.success, headers, fiber.context, slot), {
        onSuccess: (answer) =>
          answer === undefined
            ? sendGeneral(request, { requestId })
            : Effect.as(
                Effect.annotateCurrentSpan({
                  "warden.endpoint": request.endpoint,
                  "warden.request_id": requestId,
                  "warden.region": region,
                  "warden.attempts": 1,
                  "http.response.status_code": answer.status
                }),
                { ...answer, region, attempts: 1, requestId } satisfies Response
              ),
        onFailure: (failure) => sendGeneral(request, { requestId, failure, ticket: slot.ticket })
      })
    })
  }

  return {
    send: Effect.fn("Transport.send")((request: Request) => sendUntraced(request)),
    sendInCurrentSpan: sendUntraced,
    config
  }
})

/** The transport service. */
export class Transport extends Context.Service<Transport, Shape>()("@warden/transport/Transport") {
  /** On the `ApiConfig`, `RateLimiter` and undici `Dispatcher` provided. */
  static readonly layerNoDeps: Layer.Layer<Transport, never, ApiConfig | RateLimiter | HttpDispatcher> = Layer.effect(
    Transport,
    make
  )
  /** On a given `Dispatcher` and `ApiConfig`, with its own limiter (one per layer instance: share the layer). */
  static readonly layer: Layer.Layer<Transport | RateLimiter, never, ApiConfig | HttpDispatcher> =
    Transport.layerNoDeps.pipe(Layer.provideMerge(RateLimiter.layer))
  /** On its own undici `Agent` (keep-alive connection pool), with its own limiter. */
  static readonly layerUndici: Layer.Layer<Transport | RateLimiter, never, ApiConfig> = Transport.layer.pipe(
    Layer.provide(HttpDispatcher.layer)
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
