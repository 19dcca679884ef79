/**
 * Both v1 clients on one transport, in one layer: what a service or the daemon usually wants.
 */
import { type ApiConfig, type RateLimiter, Transport } from "@warden/transport"
import type * as Config from "effect/Config"
import * as Layer from "effect/Layer"
import { AnalyzeV1 } from "./AnalyzeV1.ts"
import { FeedbackV1, type Options } from "./FeedbackV1.ts"

/** The services a full client layer provides. */
export type Services = AnalyzeV1 | FeedbackV1 | Transport.Transport | RateLimiter.RateLimiter | ApiConfig.ApiConfig

/** `AnalyzeV1` and `FeedbackV1` on a given `Transport` (share one transport with `@warden/legacy`). */
export const layer = (options: Options = {}): Layer.Layer<AnalyzeV1 | FeedbackV1, never, Transport.Transport> =>
  Layer.mergeAll(AnalyzeV1.layer, FeedbackV1.layerOptions(options))

/** Both clients on a transport configured from the environment (`WARDEN_API_KEY`, `WARDEN_BASE_URL`, ...). */
export const layerConfig = (
  overrides: ApiConfig.Overrides = {},
  options: Options = {}
): Layer.Layer<Services, ApiConfig.ApiConfigError | Config.ConfigError> =>
  layer(options).pipe(Layer.provideMerge(Transport.Transport.layerConfig(overrides)))

/** Both clients on a transport configured in code. */
export const layerOptions = (
  input: ApiConfig.Input,
  options: Options = {}
): Layer.Layer<Services, ApiConfig.ApiConfigError> =>
  layer(options).pipe(Layer.provideMerge(Transport.Transport.layerOptions(input)))
