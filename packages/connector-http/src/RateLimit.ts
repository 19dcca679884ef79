/**
 * Each client's request rate: a token bucket of `burst` requests refilled at `perSecond`. A request
 * over it is answered 429 in the API's own quota envelope, with `Retry-After`, so the typed client's
 * quota handling (`@warden/transport`: it learns the quota value a 429 names) paces itself against
 * Warden as against the API.
 *
 * @since 0.1.0
 */
import type { Rate } from "./HttpConfig.ts"

/** A client's bucket. */
export interface Bucket {
  /** Takes one request's token: `0` when it may go now, else the seconds until one is there. */
  readonly take: (nowMillis: number) => number
  /** The quota's name and value, as the 429 names them. */
  readonly quotaName: string
  readonly quotaValue: number
}

/** A bucket for `client` at `rate`, full at first. */
export const bucket = (client: string, rate: Rate): Bucket => {
  const size = rate.burst ?? Math.max(1, Math.ceil(rate.perSecond))
  let tokens = size
  let at = 0
  return {
    quotaName: `warden.http.${client}.requests_per_second`,
    quotaValue: rate.perSecond,
    take: (now) => {
      if (at !== 0) tokens = Math.min(size, tokens + ((now - at) / 1000) * rate.perSecond)
      at = now
      if (tokens >= 1) {
        tokens -= 1
        return 0
      }
      return Math.max(1, Math.ceil((1 - tokens) / rate.perSecond))
    }
  }
}
