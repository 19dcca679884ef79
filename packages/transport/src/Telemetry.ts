/**
 * The transport's metrics, named `warden_api_*` for the daemon's Prometheus `/metrics`. Labels stay
 * low-cardinality: `endpoint` (one of six names), `region` (three, plus `legacy`), `status` (an HTTP
 * status or `none` when no answer came back), `code` (an error code or a client-side tag), `reason`.
 * Spans: every call is one `Transport.send` span with `warden.endpoint`, `warden.region`,
 * `warden.attempts`, `http.response.status_code` and `warden.error.code`, and a `retry` event per
 * retry (attempt, region, reason, delay). No span per attempt: spans cost more than the HTTP exchange
 * itself at thousands of calls/s. The key is never an attribute.
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"

/** HTTP attempts sent, by `endpoint`, `region` and `status`. */
export const requests = Metric.counter("warden_api_requests_total", {
  description: "HTTP attempts sent to the Content Analysis API",
  incremental: true
})

/** Seconds from sending an attempt to the end of its answer, by `endpoint` and `region`. */
export const latency = Metric.histogram("warden_api_request_duration_seconds", {
  description: "Latency of one HTTP attempt, in seconds",
  boundaries: Metric.exponentialBoundaries({ start: 0.005, factor: 2, count: 14 })
})

/** Retries started, by `endpoint` and `reason` (the error code or transport failure that caused it). */
export const retries = Metric.counter("warden_api_retries_total", {
  description: "Retries of a failed attempt",
  incremental: true
})

/** Calls that failed in the end, by `endpoint` and `code` (API error code or client-side tag). */
export const errors = Metric.counter("warden_api_errors_total", {
  description: "Calls that failed, by error code",
  incremental: true
})

/** Seconds a call waited for the client-side rate limiter, by `endpoint`. */
export const limiterWait = Metric.histogram("warden_api_limiter_wait_seconds", {
  description: "Time spent waiting for the client-side rate limiter, in seconds",
  boundaries: [0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
})

/** Region failovers, by `from` and `to`. */
export const failovers = Metric.counter("warden_api_region_failovers_total", {
  description: "Times a call moved on to the next region",
  incremental: true
})

/**
 * One metric instance per series, reused: a fresh `withAttributes` instance would recompute its
 * series key (a sort and a JSON encoding) on every update, which shows at thousands of calls/s.
 */
const series = new Map<string, Metric.Metric<number, unknown>>()
const withLabels = <M extends Metric.Metric<number, unknown>>(metric: M, attributes: Record<string, string>): M => {
  let key = metric.id
  for (const k in attributes) key += `\u0000${k}=${attributes[k]}`
  let m = series.get(key)
  if (m === undefined) {
    m = Metric.withAttributes(metric, attributes)
    series.set(key, m)
  }
  return m as M
}

const count = (metric: Metric.Metric<number, unknown>, attributes: Record<string, string>, value = 1) =>
  Metric.update(withLabels(metric, attributes), value)

/** Records one attempt: its outcome and its latency. */
export const recordAttempt = (endpoint: string, region: string, status: string, seconds: number): Effect.Effect<void> =>
  Effect.andThen(
    count(requests, { endpoint, region, status }),
    Metric.update(withLabels(latency, { endpoint, region }), seconds)
  )

/** Records a retry. */
export const recordRetry = (endpoint: string, reason: string): Effect.Effect<void> =>
  count(retries, { endpoint, reason })

/** Records a failed call. */
export const recordError = (endpoint: string, code: string): Effect.Effect<void> => count(errors, { endpoint, code })

/** Records a wait for the limiter (also when it was zero, so the histogram counts every call). */
export const recordLimiterWait = (endpoint: string, millis: number): Effect.Effect<void> =>
  Metric.update(withLabels(limiterWait, { endpoint }), millis / 1000)

/** Records a failover. */
export const recordFailover = (from: string, to: string): Effect.Effect<void> => count(failovers, { from, to })

/** The code an error is counted under: the API's code, or the client-side tag. */
export const errorCode = (error: { readonly _tag: string; readonly error?: { readonly code?: string } }): string =>
  error.error?.code ?? error._tag

/** Records one attempt synchronously, with the metrics registry of `context` (the transport's hot path). */
export const recordAttemptUnsafe = (
  context: Context.Context<never>,
  endpoint: string,
  region: string,
  status: string,
  seconds: number
): void => {
  // nested maps: no key string built per call
  let byRegion = attemptSeries.get(endpoint)
  if (byRegion === undefined) {
    byRegion = new Map()
    attemptSeries.set(endpoint, byRegion)
  }
  let byStatus = byRegion.get(region)
  if (byStatus === undefined) {
    byStatus = new Map()
    byRegion.set(region, byStatus)
  }
  let pair = byStatus.get(status)
  if (pair === undefined) {
    pair = [withLabels(requests, { endpoint, region, status }), withLabels(latency, { endpoint, region })]
    byStatus.set(status, pair)
  }
  pair[0].updateUnsafe(1, context)
  pair[1].updateUnsafe(seconds, context)
}

const attemptSeries = new Map<
  string,
  Map<string, Map<string, readonly [Metric.Metric<number, unknown>, Metric.Metric<number, unknown>]>>
>()

/** `recordLimiterWait`, synchronously. */
export const recordLimiterWaitUnsafe = (context: Context.Context<never>, endpoint: string, millis: number): void =>
  withLabels(limiterWait, { endpoint }).updateUnsafe(millis / 1000, context)

/** `recordRetry`, synchronously. */
export const recordRetryUnsafe = (context: Context.Context<never>, endpoint: string, reason: string): void =>
  withLabels(retries, { endpoint, reason }).updateUnsafe(1, context)

/** `recordError`, synchronously. */
export const recordErrorUnsafe = (context: Context.Context<never>, endpoint: string, code: string): void =>
  withLabels(errors, { endpoint, code }).updateUnsafe(1, context)

/** `recordFailover`, synchronously. */
export const recordFailoverUnsafe = (context: Context.Context<never>, from: string, to: string): void =>
  withLabels(failovers, { from, to }).updateUnsafe(1, context)
