/**
 * The `WARDEN_*` environment variables of the API connection, declared once: `ApiConfig.fromEnv`, the
 * Promise clients (`PromiseClient.resolve`) and the daemon's config file (the `api` keys a file leaves
 * out, and its reference docs) all read them from here. Plain values, no imports: the Promise clients
 * load this without `effect/Schema`.
 */

/** Every variable, by what it sets. */
export const ApiEnv = {
  apiKey: "WARDEN_API_KEY",
  keyKind: "WARDEN_KEY_KIND",
  region: "WARDEN_REGION",
  baseUrl: "WARDEN_BASE_URL",
  baseUrlUsEast: "WARDEN_BASE_URL_US_EAST",
  baseUrlUsWest: "WARDEN_BASE_URL_US_WEST",
  legacyBaseUrl: "WARDEN_LEGACY_BASE_URL",
  legacyApiKey: "WARDEN_LEGACY_API_KEY",
  timeout: "WARDEN_TIMEOUT",
  retryMaxAttempts: "WARDEN_RETRY_MAX_ATTEMPTS",
  retryBaseDelay: "WARDEN_RETRY_BASE_DELAY",
  retryMaxDelay: "WARDEN_RETRY_MAX_DELAY",
  retryMaxElapsed: "WARDEN_RETRY_MAX_ELAPSED",
  /** Comma-separated regions tried after `region`. */
  failover: "WARDEN_FAILOVER",
  /** One rate for every endpoint (requests per second), with `rateLimitBurst`. */
  rateLimitRps: "WARDEN_RATE_LIMIT_RPS",
  rateLimitBurst: "WARDEN_RATE_LIMIT_BURST",
  /** The Promise clients' log level. */
  log: "WARDEN_LOG"
} as const

/** The variable holding each region's base URL. */
export const REGION_BASE_URL = {
  global: ApiEnv.baseUrl,
  "us-east": ApiEnv.baseUrlUsEast,
  "us-west": ApiEnv.baseUrlUsWest
} as const
