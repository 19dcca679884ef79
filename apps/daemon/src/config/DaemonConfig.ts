/**
 * The loaded config as a service, for layers that need it (`Layer.provide(DaemonConfig.layer(path))`).
 */
import { Context, Layer } from "effect"
import type { ConfigError } from "./ConfigError.ts"
import { loadConfig, type Options } from "./LoadConfig.ts"
import type { WardenConfig } from "./WardenConfig.ts"

/** The daemon's decoded and checked `warden.yaml`. */
export class DaemonConfig extends Context.Service<DaemonConfig, WardenConfig>()("@warden/daemon/DaemonConfig") {
  /** Loads `path` (failing with `ConfigError`, exit 78, on any problem). */
  static readonly layer = (path: string, options: Options = {}): Layer.Layer<DaemonConfig, ConfigError> =>
    Layer.effect(DaemonConfig, loadConfig(path, options))
  /** An already loaded config (tests, `warden demo`). */
  static readonly layerValue = (config: WardenConfig): Layer.Layer<DaemonConfig> => Layer.succeed(DaemonConfig, config)
}
