/**
 * When and how a failed call is tried again (spec, Errors rule 1): only `TRANSIENT_ERROR` and failures
 * where no answer came back (connect, reset, timeout) are retried, with exponential backoff and full
 * jitter, within a bounded number of attempts and a bounded total time. A 502/503/504 whose body is not
 * the API's JSON (a proxy's HTML page) is a `TransientError` too (`@warden/core`'s `decodeApiError`),
 * so it is retried. 400/401/403/404/409/412 are never retried, and neither is 429: it surfaces as
 * `QuotaError` so the caller (and the client-side limiter) slows down.
 *
 * This is the one policy of every client: the CLI, `@warden/v1`, `@warden/legacy` and the daemon all
 * send through `Transport`, and the daemon's config (`api.retry`) defaults to `defaults` below.
 */
import * as Duration from "effect/Duration"

/** Retry settings; every field has a default (`RetryPolicy.defaults`). */
export interface Options {
  /** Attempts in all, the first included (1 = never retry). Default 5. */
  readonly maxAttempts: number
  /** Backoff base: attempt n waits up to `baseDelay * 2^(n-1)`. Default 200 millis. */
  readonly baseDelay: Duration.Input
  /** Cap of one backoff wait. Default 5 seconds. */
  readonly maxDelay: Duration.Input
  /** No retry starts once this much time has passed since the first attempt. Default 30 seconds. */
  readonly maxElapsed: Duration.Input
}

/**
 * The default retry settings, written as the config file writes durations. With the default 10 s
 * timeout of one attempt, a call against a server that never answers gives up after about 40 s.
 */
export const defaults = {
  maxAttempts: 5,
  baseDelay: "200 millis",
  maxDelay: "5 seconds",
  maxElapsed: "30 seconds"
} as const satisfies Options

/** No retries at all. */
export const none: Options = { ...defaults, maxAttempts: 1 }

/** Merges partial settings over the defaults. */
export const make = (options: Partial<Options> = {}): Options => ({ ...defaults, ...options })

/** Whether a failure (by tag) may be retried: only transient server answers and missing answers. */
export const isRetryable = <E extends { readonly _tag: string }>(
  error: E
): error is Extract<E, { readonly _tag: "TransientError" | "TransportError" }> =>
  error._tag === "TransientError" || error._tag === "TransportError"

/**
 * The wait before retry number `retry` (1 for the first retry): full jitter, a uniform draw in
 * `[0, min(maxDelay, baseDelay * 2^(retry-1))]`. `random` is injectable for tests.
 */
export const delayMillis = (options: Options, retry: number, random: () => number = Math.random): number => {
  const cap = Math.min(Duration.toMillis(options.maxDelay), Duration.toMillis(options.baseDelay) * 2 ** (retry - 1))
  return Math.floor(random() * cap)
}

/**
 * Whether retry number `retry` may start, `elapsedMillis` after the first attempt, after waiting
 * `delay`: within the attempt budget and the time budget.
 */
export const mayRetry = (options: Options, retry: number, elapsedMillis: number, delay: number): boolean =>
  retry < options.maxAttempts && elapsedMillis + delay < Duration.toMillis(options.maxElapsed)
