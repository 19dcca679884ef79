/**
 * `@warden/transport`: the HTTP layer of the Warden clients — configuration, auth headers, retries,
 * client-side quotas, regions, timeouts and telemetry. `@warden/v1` and `@warden/legacy` build on it.
 */
export * as ApiConfig from "./ApiConfig.ts"
export { ApiEnv, REGION_BASE_URL } from "./ApiEnv.ts"
export * as HttpDispatcher from "./HttpDispatcher.ts"
export * as QuotaPolicy from "./QuotaPolicy.ts"
export * as RateLimiter from "./RateLimiter.ts"
export * as Region from "./Region.ts"
export * as RegionPolicy from "./RegionPolicy.ts"
export * as RetryPolicy from "./RetryPolicy.ts"
export * as Telemetry from "./Telemetry.ts"
export * as Transport from "./Transport.ts"
export * as Version from "./Version.ts"
export * as PromiseClient from "./PromiseClient.ts"
