/**
 * The `api` section of `warden.yaml`: key, region and base URLs, timeout, retry, client-side quotas
 * and region failover; everything `@warden/transport`'s `ApiConfig` knows.
 */
import { PATHS } from "@warden/core"
import { ApiConfig, RetryPolicy } from "@warden/transport"
import { Schema } from "effect"
import { durationsOrdered, durationWithDefault, HttpUrl, IntBetween, withDefault } from "../domain/internal/Schemas.ts"
import { ConfigSecret } from "./ConfigSecret.ts"

/** A region of the API. */
export const Region = Schema.Literals(["global", "us-east", "us-west"])
/** @see {@link Region} */
export type Region = typeof Region.Type

/** A client-side rate on one endpoint. */
export const Rate = Schema.Struct({
  requestsPerSecond: Schema.Finite.check(Schema.isBetween({ minimum: 0.01, maximum: 1_000_000 })),
  burst: Schema.optionalKey(IntBetween(1, 1_000_000))
})
/** @see {@link Rate} */
export type Rate = typeof Rate.Type

/** The endpoint names of `@warden/core`'s `PATHS`, the keys of `api.quotas`. */
export const ENDPOINT_NAMES = Object.keys(PATHS) as ReadonlyArray<keyof typeof PATHS>

/**
 * Client-side quotas: a rate per endpoint and a `default` for the others, all optional (the limiter
 * learns each quota from the value a 429 names). `adaptive` is accepted so older files load, and ignored.
 */
export const Quotas = Schema.Struct({
  default: Schema.optionalKey(Rate),
  adaptive: Schema.optionalKey(
    Schema.Struct({
      decrease: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
      recoverySeconds: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 1, maximum: 86_400 }))),
      floor: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })))
    })
  ),
  analyzeText: Schema.optionalKey(Rate),
  analyzeImage: Schema.optionalKey(Rate),
  analyzeUsername: Schema.optionalKey(Rate),
  feedbackText: Schema.optionalKey(Rate),
  feedbackImage: Schema.optionalKey(Rate),
  legacyAnalyze: Schema.optionalKey(Rate)
})
/** @see {@link Quotas} */
export type Quotas = typeof Quotas.Type

/** Retry of transient failures; the defaults are the transport's own (`RetryPolicy.defaults`), the CLI's too. */
export const Retry = Schema.Struct({
  maxAttempts: IntBetween(1, 100).pipe(withDefault(RetryPolicy.defaults.maxAttempts)),
  baseDelay: durationWithDefault(RetryPolicy.defaults.baseDelay, "10 millis"),
  maxDelay: durationWithDefault(RetryPolicy.defaults.maxDelay, "10 millis"),
  maxElapsed: durationWithDefault(RetryPolicy.defaults.maxElapsed, "100 millis")
}).check(durationsOrdered("baseDelay", "maxDelay"), durationsOrdered("maxDelay", "maxElapsed"))
/** @see {@link Retry} */
export type Retry = typeof Retry.Type

/** Which region calls go to: `pinned` to `api.region`, or `failover` through `failover` after it. */
export const Regions = Schema.Struct({
  policy: Schema.Literals(["pinned", "failover"]).pipe(withDefault("pinned")),
  failover: Schema.Array(Region).pipe(withDefault([])),
  recoverAfter: durationWithDefault("60 seconds", "1 second")
})
/** @see {@link Regions} */
export type Regions = typeof Regions.Type

/** The `api` section: everything `@warden/transport`'s `ApiConfig` knows. */
export const ApiSection = Schema.Struct({
  apiKey: ConfigSecret,
  keyKind: Schema.Literals(["standard", "reseller"]).pipe(withDefault("standard")),
  region: Region.pipe(withDefault("global")),
  baseUrl: Schema.optionalKey(HttpUrl),
  baseUrlUsEast: Schema.optionalKey(HttpUrl),
  baseUrlUsWest: Schema.optionalKey(HttpUrl),
  legacyBaseUrl: Schema.optionalKey(HttpUrl),
  legacyApiKey: Schema.optionalKey(ConfigSecret),
  timeout: durationWithDefault(ApiConfig.DEFAULT_TIMEOUT, "100 millis"),
  retry: Retry.pipe(withDefault({})),
  quotas: Quotas.pipe(withDefault({})),
  regions: Regions.pipe(withDefault({})),
  userAgentSuffix: Schema.optionalKey(Schema.String)
})
/** @see {@link ApiSection} */
export type ApiSection = typeof ApiSection.Type
