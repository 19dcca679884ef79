/**
 * Client-side quota settings: a request rate and a burst per endpoint, matching the contract's
 * quotas (the spec counts them per organisation and per endpoint; their values are contract-specific,
 * so they are configuration). None is required: the limiter learns each endpoint's quota from the
 * value a 429 names (`RateLimiter`); a configured rate only saves the first 429s.
 */
import { type EndpointName, PATHS } from "@warden/core/endpoints"

/** The rate allowed on one endpoint. */
export interface Rate {
  /** Sustained requests per second. */
  readonly requestsPerSecond: number
  /** Requests that may go at once after a quiet period (the bucket size). Default: `requestsPerSecond`. */
  readonly burst?: number | undefined
}

/**
 * How the limiter adapted after a 429 before it learnt quotas from the server's answers.
 * @deprecated ignored: the limiter now takes the quota value a 429 names (see `RateLimiter`).
 */
export interface Adaptive {
  /** The rate is multiplied by this on each `QuotaError` (default 0.5). */
  readonly decrease: number
  /** Seconds to climb back linearly from the reduced rate to the configured one (default 10). */
  readonly recoverySeconds: number
  /** The rate never goes below this fraction of the configured one (default 0.05). */
  readonly floor: number
}

/** Quota settings: a rate per endpoint (endpoints without one are not limited) and the adaptation. */
export interface Options {
  /** A rate for every endpoint that has no entry in `endpoints`. */
  readonly default?: Rate | undefined
  /** Rates by endpoint name (`analyzeText`, `feedbackImage`, `legacyAnalyze`, ...). */
  readonly endpoints?: Partial<Record<EndpointName, Rate>> | undefined
  /** @deprecated ignored: the limiter learns the quota from the value a 429 names. */
  readonly adaptive?: Partial<Adaptive> | undefined
  /**
   * Headroom kept below each configured quota, so network jitter never makes two requests land closer
   * than the server's bucket allows: the rate is reduced by this fraction and the burst by one request
   * (default 0.02; 0 uses the exact numbers). Small, because the limiter judges every send at the
   * moment it goes and waits for a burst's answers before pacing on (`RateLimiter`): jitter is not
   * what the margin has to absorb.
   */
  readonly margin?: number | undefined
}

/** The default headroom below a configured quota. */
export const DEFAULT_MARGIN = 0.02

/** @deprecated see `Adaptive`. */
export const defaultAdaptive: Adaptive = { decrease: 0.5, recoverySeconds: 10, floor: 0.05 }

/** No configured rate: each endpoint starts in slow start and learns its quota from its first 429 (`RateLimiter`). */
export const unlimited: Options = {}

/** The rate configured for an endpoint, if any. */
export const rateFor = (options: Options, endpoint: EndpointName): Rate | undefined =>
  options.endpoints?.[endpoint] ?? options.default

/** The headroom in force: `margin`, or the default, within [0, 0.9]. */
export const marginOf = (options: Options): number => Math.min(0.9, Math.max(0, options.margin ?? DEFAULT_MARGIN))

/** The endpoints that have a configured rate (every endpoint when a `default` is set). */
export const configuredEndpoints = (options: Options): ReadonlyArray<EndpointName> =>
  options.default !== undefined
    ? (Object.keys(PATHS) as Array<EndpointName>)
    : (Object.keys(options.endpoints ?? {}) as Array<EndpointName>).filter((e) => options.endpoints?.[e] !== undefined)

/** The rate the limiter enforces for an endpoint: the configured one minus the headroom. */
export const effectiveRate = (options: Options, endpoint: EndpointName): Rate | undefined => {
  const rate = rateFor(options, endpoint)
  if (rate === undefined) return undefined
  const margin = marginOf(options)
  const burst = rate.burst ?? rate.requestsPerSecond
  return {
    requestsPerSecond: rate.requestsPerSecond * (1 - margin),
    burst: margin > 0 ? Math.max(1, Math.floor(burst) - 1) : Math.max(1, Math.floor(burst))
  }
}
