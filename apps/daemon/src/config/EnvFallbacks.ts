/**
 * The `WARDEN_*` environment variables that fill `api` keys the config file leaves out (the transport's
 * `ApiEnv` names them): which key each fills, and the filling itself, done on the document as written
 * (after its secret references are resolved, before it is decoded).
 */
import { ApiEnv } from "@warden/transport"
import { isRecord } from "./internal/Decode.ts"

/** `api` keys filled from the environment (the transport's `ApiEnv`) when the file leaves them out. */
const API_ENV: ReadonlyArray<readonly [key: string, variable: string]> = [
  ["apiKey", ApiEnv.apiKey],
  ["keyKind", ApiEnv.keyKind],
  ["region", ApiEnv.region],
  ["baseUrl", ApiEnv.baseUrl],
  ["baseUrlUsEast", ApiEnv.baseUrlUsEast],
  ["baseUrlUsWest", ApiEnv.baseUrlUsWest],
  ["legacyBaseUrl", ApiEnv.legacyBaseUrl],
  ["legacyApiKey", ApiEnv.legacyApiKey],
  ["timeout", ApiEnv.timeout]
]
const RETRY_ENV: ReadonlyArray<readonly [key: string, variable: string]> = [
  ["maxAttempts", ApiEnv.retryMaxAttempts],
  ["baseDelay", ApiEnv.retryBaseDelay],
  ["maxDelay", ApiEnv.retryMaxDelay],
  ["maxElapsed", ApiEnv.retryMaxElapsed]
]

/**
 * The config keys a `WARDEN_*` variable fills when the file leaves them out, with the variables (the
 * reference docs list them; a drift test sets each and checks its key is filled).
 */
export const ENV_FALLBACKS: ReadonlyMap<string, string> = new Map([
  ...API_ENV.map(([key, variable]) => [`api.${key}`, variable] as const),
  ...RETRY_ENV.map(([key, variable]) => [`api.retry.${key}`, variable] as const),
  ["api.regions.failover", ApiEnv.failover],
  ["api.quotas.default", `${ApiEnv.rateLimitRps}, ${ApiEnv.rateLimitBurst}`]
])

const asNumber = (s: string): number | string => (/^-?\d+(\.\d+)?$/u.test(s.trim()) ? Number(s) : s)

/** Fills `api` keys the file leaves out from `WARDEN_*` variables; returns which path came from which variable. */
export const fillApiFromEnv = (
  document: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>
): Map<string, string> => {
  const filled = new Map<string, string>()
  const api: Record<string, unknown> = isRecord(document.api) ? { ...document.api } : {}
  if (document.api !== undefined && !isRecord(document.api)) return filled
  const set = (target: Record<string, unknown>, key: string, variable: string, path: string, value: unknown) => {
    if (target[key] !== undefined) return
    target[key] = value
    filled.set(path, variable)
  }
  for (const [key, variable] of API_ENV) {
    const v = env[variable]
    if (v !== undefined && v !== "") set(api, key, variable, `api.${key}`, v)
  }
  if (isRecord(api.retry) || api.retry === undefined) {
    const retry: Record<string, unknown> = { ...((api.retry as Record<string, unknown> | undefined) ?? {}) }
    for (const [key, variable] of RETRY_ENV) {
      const v = env[variable]
      if (v !== undefined && v !== "")
        set(retry, key, variable, `api.retry.${key}`, key === "maxAttempts" ? asNumber(v) : v)
    }
    if (Object.keys(retry).length > 0) api.retry = retry
  }
  const failover = env[ApiEnv.failover]
  if (failover !== undefined && failover.trim() !== "" && (isRecord(api.regions) || api.regions === undefined)) {
    const regions: Record<string, unknown> = { ...((api.regions as Record<string, unknown> | undefined) ?? {}) }
    if (regions.failover === undefined) {
      set(
        regions,
        "failover",
        ApiEnv.failover,
        "api.regions.failover",
        failover
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "")
      )
      if (regions.policy === undefined) regions.policy = "failover"
      api.regions = regions
    }
  }
  const rps = env[ApiEnv.rateLimitRps]
  if (rps !== undefined && rps !== "" && (isRecord(api.quotas) || api.quotas === undefined)) {
    const quotas: Record<string, unknown> = { ...((api.quotas as Record<string, unknown> | undefined) ?? {}) }
    const burst = env[ApiEnv.rateLimitBurst]
    set(quotas, "default", ApiEnv.rateLimitRps, "api.quotas.default", {
      requestsPerSecond: asNumber(rps),
      ...(burst !== undefined && burst !== "" ? { burst: asNumber(burst) } : {})
    })
    api.quotas = quotas
  }
  document.api = api
  return filled
}
