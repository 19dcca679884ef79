/**
 * `ApiConfig.make`'s checks and defaults as a plain function (a message string when the settings
 * cannot work), so that `new Warden(...)` checks its options in the constructor without loading
 * `effect/Schema` or `effect/Config` (`ApiConfig.ts` declares its error with them).
 */
import * as Duration from "effect/Duration"
import * as Redacted from "effect/Redacted"
import type { Input, Shape } from "../ApiConfig.ts"
import { ApiEnv } from "../ApiEnv.ts"
import * as QuotaPolicy from "../QuotaPolicy.ts"
import * as RegionPolicy from "../RegionPolicy.ts"
import * as RetryPolicy from "../RetryPolicy.ts"
import { userAgent } from "../Version.ts"
import { BASE_URL_ENV, REGIONS, type RegionName } from "./regions.ts"

/** The default timeout of one attempt, shared by every client and the daemon's `api.timeout`. */
export const DEFAULT_TIMEOUT = "10 seconds"

/** A key as given, wrapped in `Redacted` if it is a plain string. */
export const redacted = (key: Redacted.Redacted<string> | string): Redacted.Redacted<string> =>
  typeof key === "string" ? Redacted.make(key, { label: ApiEnv.apiKey }) : key

/** The URL without trailing slashes, or `undefined` when it is not an http(s) URL. */
const normalizeUrl = (url: string): string | undefined =>
  URL.canParse(url) && /^https?:$/.test(new URL(url).protocol) ? url.replace(/\/+$/, "") : undefined

const notUrl = (name: string, url: string) => `${name} must be an http(s) URL, got ${JSON.stringify(url)}`

/** The resolved settings, or why they cannot work: every region a call may use needs a base URL. */
export const resolveSettings = (input: Input): Shape | string => {
  const region = input.region ?? "global"
  const unknown = [region, ...(input.failover ?? [])].filter((r) => !REGIONS.includes(r))
  if (unknown.length > 0) return `unknown region ${unknown.join(", ")} (regions: ${REGIONS.join(", ")})`
  const order: Array<RegionName> = [region]
  for (const r of input.failover ?? []) if (!order.includes(r)) order.push(r)
  const baseUrls: Partial<Record<RegionName, string>> = {}
  for (const r of REGIONS) {
    const url = input.baseUrls?.[r]
    if (url === undefined) continue
    const normalized = normalizeUrl(url)
    if (normalized === undefined) return notUrl(BASE_URL_ENV[r], url)
    baseUrls[r] = normalized
  }
  const legacyOnly = input.legacyBaseUrl !== undefined && order.length === 1
  // a legacy-only client needs no v1 URL: a v1 call then fails with a TransportError naming the variable
  const missing = legacyOnly ? [] : order.filter((r) => baseUrls[r] === undefined)
  if (missing.length > 0) {
    return `no base URL for region ${missing.join(", ")}: set ${missing.map((r) => BASE_URL_ENV[r]).join(", ")}`
  }
  const legacyBaseUrl = input.legacyBaseUrl === undefined ? undefined : normalizeUrl(input.legacyBaseUrl)
  if (input.legacyBaseUrl !== undefined && legacyBaseUrl === undefined) {
    return notUrl(ApiEnv.legacyBaseUrl, input.legacyBaseUrl)
  }
  const apiKey = redacted(input.apiKey)
  const retry = RetryPolicy.make(input.retry)
  if (!(Number.isInteger(retry.maxAttempts) && retry.maxAttempts >= 1)) {
    return `retry.maxAttempts must be an integer >= 1, got ${retry.maxAttempts}`
  }
  return {
    apiKey,
    keyKind: input.keyKind ?? "standard",
    baseUrls,
    legacyBaseUrl,
    legacyApiKey: input.legacyApiKey === undefined ? apiKey : redacted(input.legacyApiKey),
    timeout: Duration.fromInputUnsafe(input.timeout ?? DEFAULT_TIMEOUT),
    retry,
    quotas: input.quotas ?? QuotaPolicy.unlimited,
    regions:
      order.length === 1
        ? RegionPolicy.pinned(region)
        : RegionPolicy.failover(order as [RegionName, ...Array<RegionName>], {
            recoverAfter: input.failoverRecoverAfter
          }),
    userAgent: userAgent(input.userAgentSuffix)
  }
}
