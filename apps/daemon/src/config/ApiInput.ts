/**
 * The `api` section as `@warden/transport`'s `ApiConfig.Input`: what the engine passes to
 * `ApiConfig.layer(toApiConfigInput(config.api))`.
 */
import type { ApiConfig, QuotaPolicy } from "@warden/transport"
import { type ApiSection, ENDPOINT_NAMES } from "./ApiSection.ts"

/** Converts the decoded `api` section to the transport's input (region base URLs, failover, quotas by endpoint). */
export const toApiConfigInput = (api: ApiSection): ApiConfig.Input => {
  const endpoints: Partial<Record<(typeof ENDPOINT_NAMES)[number], QuotaPolicy.Rate>> = {}
  for (const name of ENDPOINT_NAMES) {
    const rate = api.quotas[name]
    if (rate !== undefined) endpoints[name] = rate
  }
  return {
    apiKey: api.apiKey,
    keyKind: api.keyKind,
    region: api.region,
    baseUrls: { global: api.baseUrl, "us-east": api.baseUrlUsEast, "us-west": api.baseUrlUsWest },
    legacyBaseUrl: api.legacyBaseUrl,
    legacyApiKey: api.legacyApiKey,
    timeout: api.timeout,
    retry: api.retry,
    // `api.quotas.adaptive` is still read from old files but means nothing: the limiter learns quotas
    quotas: { default: api.quotas.default, endpoints },
    failover: api.regions.policy === "failover" ? api.regions.failover : [],
    failoverRecoverAfter: api.regions.recoverAfter,
    userAgentSuffix: api.userAgentSuffix
  }
}
