/**
 * The client-side rate limiter: one token bucket per endpoint, shared by every fiber that uses the
 * same layer (build the layer once per process). A caller reserves a token and waits its turn (FIFO,
 * no polling). On a `QuotaError` the endpoint's rate drops (`QuotaPolicy.Adaptive.decrease`, or to
 * the quota value the server named, if lower) and climbs back linearly to the configured rate.
 */
import type { EndpointName, QuotaViolation } from "@warden/core"
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { ApiConfig } from "./ApiConfig.ts"
import * as QuotaPolicy from "./QuotaPolicy.ts"

interface Bucket {
  readonly configured: number
  readonly burst: number
  tokens: number
  last: number
  /** Rate right after the last 429, and when that was. */
  reducedRate: number
  reducedAt: number
}

/** The limiter's state for one endpoint, for logs and tests. */
export interface Status {
  readonly endpoint: EndpointName
  readonly configuredRate: number
  readonly currentRate: number
  readonly tokens: number
}

/** Shape of the limiter. */
export interface Shape {
  /** Waits until a call to `endpoint` may go; returns how long it waited (ms). */
  readonly acquire: (endpoint: EndpointName) => Effect.Effect<number>
  /** Slows `endpoint` down after a 429 that named `violations`. */
  readonly penalize: (endpoint: EndpointName, violations: ReadonlyArray<QuotaViolation>) => Effect.Effect<void>
  /** The current state of an endpoint's bucket (`undefined` when it is not limited). */
  readonly status: (endpoint: EndpointName) => Effect.Effect<Status | undefined>
}

/** Builds a limiter from quota settings. */
export const make = (options: QuotaPolicy.Options): Effect.Effect<Shape> =>
  Effect.sync(() => {
    const adaptive = { ...QuotaPolicy.defaultAdaptive, ...options.adaptive }
    const buckets = new Map<EndpointName, Bucket | null>()
    const bucket = (endpoint: EndpointName, now: number): Bucket | null => {
      let b = buckets.get(endpoint)
      if (b === undefined) {
        const rate = QuotaPolicy.effectiveRate(options, endpoint)
        b =
          rate === undefined || !(rate.requestsPerSecond > 0) || !Number.isFinite(rate.requestsPerSecond)
            ? null
            : {
                configured: rate.requestsPerSecond,
                burst: Math.max(1, rate.burst ?? rate.requestsPerSecond),
                tokens: Math.max(1, rate.burst ?? rate.requestsPerSecond),
                last: now,
                reducedRate: rate.requestsPerSecond,
                reducedAt: Number.NEGATIVE_INFINITY
              }
        buckets.set(endpoint, b)
      }
      return b
    }
    const currentRate = (b: Bucket, now: number): number => {
      if (b.reducedRate >= b.configured) return b.configured
      const climbed = ((now - b.reducedAt) / 1000 / adaptive.recoverySeconds) * b.configured
      return Math.min(b.configured, b.reducedRate + climbed)
    }
    const refill = (b: Bucket, now: number) => {
      const elapsed = Math.max(0, now - b.last) / 1000
      b.tokens = Math.min(b.burst, b.tokens + elapsed * currentRate(b, now))
      b.last = now
    }
    const acquire = (endpoint: EndpointName): Effect.Effect<number> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const b = bucket(endpoint, now)
        if (b === null) return Effect.succeed(0)
        refill(b, now)
        b.tokens -= 1
        if (b.tokens >= 0) return Effect.succeed(0)
        const wait = Math.ceil((-b.tokens / currentRate(b, now)) * 1000)
        return Effect.sleep(Duration.millis(wait)).pipe(
          Effect.as(wait),
          // a caller that gives up returns its reservation
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              b.tokens = Math.min(b.burst, b.tokens + 1)
            })
          )
        )
      })
    const penalize = (endpoint: EndpointName, violations: ReadonlyArray<QuotaViolation>): Effect.Effect<void> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const b = bucket(endpoint, now)
        if (b === null) return
        refill(b, now)
        const named = violations
          .filter((v) => v.quotaName.endsWith("requests_per_second"))
          .map((v) => Number(v.quotaValue))
          .filter((n) => Number.isFinite(n) && n > 0)
        const reduced = Math.min(currentRate(b, now) * adaptive.decrease, ...named)
        b.reducedRate = Math.max(b.configured * adaptive.floor, reduced)
        b.reducedAt = now
        // the server said "too many": spend what is left of the burst
        b.tokens = Math.min(b.tokens, 0)
      })
    const status = (endpoint: EndpointName): Effect.Effect<Status | undefined> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const b = bucket(endpoint, now)
        if (b === null) return undefined
        refill(b, now)
        return { endpoint, configuredRate: b.configured, currentRate: currentRate(b, now), tokens: b.tokens }
      })
    return { acquire, penalize, status }
  })

/** The process-wide rate limiter service. */
export class RateLimiter extends Context.Service<RateLimiter, Shape>()("@warden/transport/RateLimiter") {
  /** A limiter with these settings. */
  static readonly layerOptions = (options: QuotaPolicy.Options): Layer.Layer<RateLimiter> =>
    Layer.effect(RateLimiter, make(options))
  /** A limiter with the quota settings of `ApiConfig`. */
  static readonly layer: Layer.Layer<RateLimiter, never, ApiConfig> = Layer.effect(
    RateLimiter,
    Effect.flatMap(ApiConfig, (config) => make(config.quotas))
  )
}
