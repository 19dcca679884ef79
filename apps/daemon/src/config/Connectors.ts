/**
 * How the daemon finds connectors: by dynamic import from the daemon's own location, so that
 * `@warden/connector-<type>` resolves against the daemon's `node_modules`.
 */
import { type Connector, ConnectorRegistry } from "@warden/connector"
import type { Effect, Layer } from "effect"

/** Imports a module from the daemon's location (the daemon never imports a connector statically). */
export const importModule = (specifier: string): Promise<unknown> => import(specifier)

/** Connector types the daemon knows by name; `warden config schema` includes those that are installed. */
export const KNOWN_TYPES: ReadonlyArray<string> = ["rss", "discord", "youtube"]

/** Registry options for a config file in `baseDirectory`. */
export const registryOptions = (
  baseDirectory: string,
  builtins?: ReadonlyArray<Connector.Connector> | undefined
): ConnectorRegistry.Options => ({ importModule, baseDirectory, builtins })

/** Resolves one connector reference (`{ type }` or `{ module }`) for a config file in `baseDirectory`. */
export const resolve = (
  baseDirectory: string,
  ref: ConnectorRegistry.ConnectorRef,
  builtins?: ReadonlyArray<Connector.Connector> | undefined
): Effect.Effect<Connector.Connector, ConnectorRegistry.ConnectorNotFound | ConnectorRegistry.InvalidConnectorModule> =>
  ConnectorRegistry.resolve(registryOptions(baseDirectory, builtins), ref)

/** The registry service for a config file in `baseDirectory` (what the engine should provide). */
export const layer = (
  baseDirectory: string,
  builtins?: ReadonlyArray<Connector.Connector> | undefined
): Layer.Layer<ConnectorRegistry.ConnectorRegistry> =>
  ConnectorRegistry.ConnectorRegistry.layer(registryOptions(baseDirectory, builtins))
