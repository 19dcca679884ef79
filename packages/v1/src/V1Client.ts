/**
 * Both v1 clients on one transport, in one layer: what a service or the daemon usually wants.
 * `@warden/transport` is imported when the layer is built, not when `@warden/v1` is imported.
 */
import type { ApiConfig, RateLimiter, Transport } from "@warden/transport"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AnalyzeV1 } from "./AnalyzeV1.ts"
import { FeedbackV1, type Options } from "./FeedbackV1.ts"

/** The services a full client layer provides. */
export type Services = AnalyzeV1 | FeedbackV1 | Transport.Transport | RateLimiter.RateLimiter | ApiConfig.ApiConfig

/** `AnalyzeV1` and `FeedbackV1` on a given `Transport` (share one transport with `@warden/legacy`). */
export const layer = (options: Options = {}): Layer.Layer<AnalyzeV1 | FeedbackV1, never, Transport.Transport> =>
  Layer.mergeAll(AnalyzeV1.layer, FeedbackV1.layerOptions(options))

/** Both clients on the transport `transport(Transport)` builds, with `@warden/transport` loaded then. */
const onTransport = <E>(
  transport: (
    t: typeof Transport.Transport
  ) => Layer.Layer<Transport.Transport | RateLimiter.RateLimiter | ApiConfig.ApiConfig, E>,
  options: Options
): Layer.Layer<Services, E> =>
  Layer.unwrap(
    Effect.promise(() => import("@warden/transport")).pipe(
      Effect.map((t) => layer(options).pipe(Layer.provideMerge(transport(t.Transport.Transport))))
    )
  )

/** Both clients on a transport configured from the environment (`WARDEN_API_KEY`, `WARDEN_BASE_URL`, ...). */
export const layerConfig = (
  overrides: ApiConfig.Overrides = {},
  options: Options = {}
): Layer.Layer<Services, ApiConfig.ApiConfigError | Config.ConfigError> =>
  onTransport((t) => t.layerConfig(overrides), options)

/** Both clients on a transport configured in code. */
export const layerOptions = (
  input: ApiConfig.Input,
  options: Options = {}
): Layer.Layer<Services, ApiConfig.ApiConfigError> => onTransport((t) => t.layerOptions(input), options)
