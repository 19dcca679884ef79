/**
 * Rate limits per organisation and per endpoint, as token buckets. Over a limit the sandbox answers
 * 429 `QUOTA_ERROR` naming the quota (`analyze.message.requests_per_second`). No limit applies unless
 * configured (file, CLI flags, `PUT /_sandbox/quotas`), so tests and benchmarks are not throttled.
 */
import { type EndpointName, PATHS, type QuotaViolation } from "@warden/core"
import { Schema } from "effect"

/** The quota name of each endpoint, as the spec names them. */
export const QUOTA_NAMES: { readonly [K in EndpointName]: string } = {
  analyzeText: "analyze.message.requests_per_second",
  analyzeImage: "analyze.image.requests_per_second",
  analyzeUsername: "analyze.username.requests_per_second",
  feedbackText: "feedback.message.requests_per_second",
  feedbackImage: "feedback.image.requests_per_second",
  legacyAnalyze: "legacy.message.requests_per_second"
}

/** One limit: a rate, and how many requests may come at once (default: the rate, at least 1). */
export const QuotaRule = Schema.Struct({
  requestsPerSecond: Schema.Number.check(
    Schema.makeFilter<number>((n) => Number.isFinite(n) && n > 0, { message: "must be a number above 0" })
  ),
  burst: Schema.optionalKey(
    Schema.Int.check(Schema.makeFilter<number>((n) => n >= 1, { message: "must be an integer of at least 1" }))
  )
}).annotate({ identifier: "QuotaRule" })
export type QuotaRule = typeof QuotaRule.Type

const endpointNames = Object.keys(PATHS) as Array<EndpointName>

/** The limits of one organisation, per endpoint. */
export const OrganisationQuotas = Schema.Struct(
  Object.fromEntries(endpointNames.map((n) => [n, Schema.optionalKey(QuotaRule)])) as {
    readonly [K in EndpointName]: Schema.optionalKey<typeof QuotaRule>
  }
).annotate({ identifier: "OrganisationQuotas" })
export type OrganisationQuotas = typeof OrganisationQuotas.Type

/** Limits by organisation; the organisation `"*"` applies to every organisation without its own entry. */
export const QuotaConfig = Schema.Record(Schema.String, OrganisationQuotas).annotate({ identifier: "QuotaConfig" })
export type QuotaConfig = typeof QuotaConfig.Type

interface Bucket {
  tokens: number
  last: number
}

/** Token buckets for every (organisation, endpoint) pair with a limit. */
export class QuotaLimiter {
  private buckets = new Map<string, Bucket>()
  private empty: boolean
  private config: QuotaConfig
  private readonly now: () => number
  constructor(config: QuotaConfig = {}, now: () => number = () => performance.now()) {
    this.config = config
    this.now = now
    this.empty = Object.keys(config).length === 0
  }
  /** The limits in force. */
  current(): QuotaConfig {
    return this.config
  }
  /** Replaces every limit and refills every bucket. */
  set(config: QuotaConfig): void {
    this.config = config
    this.buckets = new Map()
    this.empty = Object.keys(config).length === 0
  }
  /** Takes one token; answers the violation when the organisation is over its limit. */
  take(organisation: string, endpoint: EndpointName): QuotaViolation | undefined {
    if (this.empty) return undefined
    const rule = this.config[organisation]?.[endpoint] ?? this.config["*"]?.[endpoint]
    if (rule === undefined) return undefined
    const capacity = rule.burst ?? Math.max(1, Math.floor(rule.requestsPerSecond))
    const id = `${organisation}\u0000${endpoint}`
    const now = this.now()
    let bucket = this.buckets.get(id)
    if (bucket === undefined) {
      bucket = { tokens: capacity, last: now }
      this.buckets.set(id, bucket)
    }
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.last) / 1000) * rule.requestsPerSecond)
    bucket.last = now
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return undefined
    }
    return { quotaName: QUOTA_NAMES[endpoint], quotaValue: rule.requestsPerSecond }
  }
}
