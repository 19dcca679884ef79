/**
 * Everything a client needs to reach the API: the key (always `Redacted`), its kind, the base URL of
 * each region, the legacy host and key, the per-call timeout, and the retry, quota and region
 * policies. Built in code (`ApiConfig.layer({...})`) or from the environment (`ApiConfig.layerConfig`):
 * `WARDEN_API_KEY`, `WARDEN_KEY_KIND`, `WARDEN_REGION`, `WARDEN_BASE_URL`, `WARDEN_BASE_URL_US_EAST`,
 * `WARDEN_BASE_URL_US_WEST`, `WARDEN_LEGACY_BASE_URL`, `WARDEN_LEGACY_API_KEY` (defaults to the API
 * key), and the optional tuning variables listed on `fromEnv`.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ApiEnv } from "./ApiEnv.ts"
import { redacted, resolveSettings } from "./internal/settings.ts"
import type * as QuotaPolicy from "./QuotaPolicy.ts"
import { type KeyKind, Region, KeyKind as KeyKindSchema } from "./Region.ts"
import type * as RegionPolicy from "./RegionPolicy.ts"
import type * as RetryPolicy from "./RetryPolicy.ts"

/** A configuration that cannot work (a region without a base URL, a malformed URL, ...). */
export class ApiConfigError extends Schema.TaggedError<ApiConfigError>()("ApiConfigError", {
  message: Schema.String
}) {}

/** The settings as a caller gives them; everything but the key has a default. */
export interface Input {
  /** The API key; a plain string is wrapped in `Redacted` at once. */
  readonly apiKey: Redacted.Redacted<string> | string
  /** `standard` (default) or `reseller`: only reseller keys may send the reseller-only fields. */
  readonly keyKind?: KeyKind | undefined
  /** The region calls go to (default `global`); with `failover`, the first region tried. */
  readonly region?: Region | undefined
  /** Base URL of each region, e.g. `{ global: "https://api.example.com" }`. */
  readonly baseUrls?: Partial<Record<Region, string | undefined>> | undefined
  /** Base URL of the legacy batch host. */
  readonly legacyBaseUrl?: string | undefined
  /** Key of the legacy endpoint (`X-Api-Key`); defaults to `apiKey`. */
  readonly legacyApiKey?: Redacted.Redacted<string> | string | undefined
  /**
   * Timeout of one attempt (default `DEFAULT_TIMEOUT`, 10 s): for the answer to start, and between its
   * body chunks (for a JSON answer, the whole exchange). Above 1 s undici's shared timers fire within
   * about 0.5 s of it.
   */
  readonly timeout?: Duration.Input | undefined
  /** Retry settings (`RetryPolicy`). */
  readonly retry?: Partial<RetryPolicy.Options> | undefined
  /** Client-side quotas (`QuotaPolicy`); default: no limit. */
  readonly quotas?: QuotaPolicy.Options | undefined
  /** Other regions to fail over to, in order, after `region` (default: none, pinned). */
  readonly failover?: ReadonlyArray<Region> | undefined
  /** How long a failed-over client stays on the other region before trying the first again (default 60 s). */
  readonly failoverRecoverAfter?: Duration.Input | undefined
  /** Appended to the `User-Agent` (e.g. `my-service/1.2`). */
  readonly userAgentSuffix?: string | undefined
}

/** Settings that win over the environment (the CLI's flags); `undefined` means "not given". */
export type Overrides = { readonly [K in keyof Input]?: Input[K] | undefined }

/** The resolved settings. */
export interface Shape {
  readonly apiKey: Redacted.Redacted<string>
  readonly keyKind: KeyKind
  readonly baseUrls: Partial<Record<Region, string>>
  readonly legacyBaseUrl: string | undefined
  readonly legacyApiKey: Redacted.Redacted<string>
  readonly timeout: Duration.Duration
  readonly retry: RetryPolicy.Options
  readonly quotas: QuotaPolicy.Options
  readonly regions: RegionPolicy.Options
  readonly userAgent: string
}

/** The default timeout of one attempt, shared by every client and the daemon's `api.timeout`. */
export { DEFAULT_TIMEOUT } from "./internal/settings.ts"

/** Resolves and checks the settings: every region a call may use needs a base URL. */
export const make = (input: Input): Effect.Effect<Shape, ApiConfigError> =>
  Effect.suspend(() => {
    const settings = resolveSettings(input)
    return typeof settings === "string"
      ? Effect.fail(new ApiConfigError({ message: settings }))
      : Effect.succeed(settings)
  })

const optional = <A>(config: Config.Config<A>) => Config.option(config).pipe(Config.map(Option.getOrUndefined))

/**
 * The settings from the environment (or any `ConfigProvider`). Besides the variables in the module
 * doc: `WARDEN_TIMEOUT` (e.g. `10 seconds`), `WARDEN_RETRY_MAX_ATTEMPTS`, `WARDEN_RETRY_BASE_DELAY`,
 * `WARDEN_RETRY_MAX_DELAY`, `WARDEN_RETRY_MAX_ELAPSED`, `WARDEN_FAILOVER` (comma-separated regions
 * after `WARDEN_REGION`), `WARDEN_RATE_LIMIT_RPS` and `WARDEN_RATE_LIMIT_BURST` (one rate for every
 * endpoint). `overrides` win over the environment (the CLI's flags).
 */
export const fromEnv = (overrides: Overrides = {}): Config.Config<Input> =>
  Config.all({
    apiKey:
      overrides.apiKey === undefined ? Config.Redacted(ApiEnv.apiKey) : Config.succeed(redacted(overrides.apiKey)),
    keyKind: optional(Config.schema(KeyKindSchema, ApiEnv.keyKind)),
    region: optional(Config.schema(Region, ApiEnv.region)),
    global: optional(Config.String(ApiEnv.baseUrl)),
    usEast: optional(Config.String(ApiEnv.baseUrlUsEast)),
    usWest: optional(Config.String(ApiEnv.baseUrlUsWest)),
    legacyBaseUrl: optional(Config.String(ApiEnv.legacyBaseUrl)),
    legacyApiKey: optional(Config.Redacted(ApiEnv.legacyApiKey)),
    timeout: optional(Config.Duration(ApiEnv.timeout)),
    maxAttempts: optional(Config.Int(ApiEnv.retryMaxAttempts)),
    baseDelay: optional(Config.Duration(ApiEnv.retryBaseDelay)),
    maxDelay: optional(Config.Duration(ApiEnv.retryMaxDelay)),
    maxElapsed: optional(Config.Duration(ApiEnv.retryMaxElapsed)),
    failover: optional(Config.String(ApiEnv.failover)),
    rps: optional(Config.Number(ApiEnv.rateLimitRps)),
    burst: optional(Config.Int(ApiEnv.rateLimitBurst))
  }).pipe(
    Config.map((env) => {
      const failover = (env.failover ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")
      const retry: Partial<RetryPolicy.Options> = {}
      if (env.maxAttempts !== undefined) Object.assign(retry, { maxAttempts: env.maxAttempts })
      if (env.baseDelay !== undefined) Object.assign(retry, { baseDelay: env.baseDelay })
      if (env.maxDelay !== undefined) Object.assign(retry, { maxDelay: env.maxDelay })
      if (env.maxElapsed !== undefined) Object.assign(retry, { maxElapsed: env.maxElapsed })
      const input: Input = {
        apiKey: env.apiKey,
        keyKind: env.keyKind,
        region: env.region,
        baseUrls: { global: env.global, "us-east": env.usEast, "us-west": env.usWest },
        legacyBaseUrl: env.legacyBaseUrl,
        legacyApiKey: env.legacyApiKey,
        timeout: env.timeout,
        retry,
        failover: failover as Array<Region>,
        quotas: env.rps === undefined ? undefined : { default: { requestsPerSecond: env.rps, burst: env.burst } }
      }
      const merged = { ...input, ...(dropUndefined(overrides) as Partial<Input>) }
      // base URLs merge region by region: a flag for one region keeps the environment's others
      return {
        ...merged,
        baseUrls: { ...dropUndefined(input.baseUrls ?? {}), ...dropUndefined(overrides.baseUrls ?? {}) }
      }
    })
  )

const dropUndefined = <A extends object>(a: A): Partial<A> =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<A>

/** The resolved API settings of a client. */
export class ApiConfig extends Context.Service<ApiConfig, Shape>()("@warden/transport/ApiConfig") {
  /** Settings built in code. */
  static readonly layer = (input: Input): Layer.Layer<ApiConfig, ApiConfigError> => Layer.effect(ApiConfig, make(input))
  /** Settings from the environment (`fromEnv`), with `overrides` winning. */
  static readonly layerConfig = (
    overrides: Overrides = {}
  ): Layer.Layer<ApiConfig, ApiConfigError | Config.ConfigError> =>
    Layer.effect(
      ApiConfig,
      Effect.flatMap(fromEnv(overrides), (input) => make(input))
    )
}
