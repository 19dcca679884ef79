/**
 * `@warden/connector`: the plugin SDK of Warden.
 *
 * @since 0.1.0
 */

/** Actions a source can take on its platform. */
export * as Action from "./Action.ts"

/** Backoff after failures: config schema, Schedule and per-attempt delay. */
export * as Backoff from "./Backoff.ts"

/** The resume position of a source (opaque JSON). */
export * as Checkpoint from "./Checkpoint.ts"

/** Bounds for the durations of a connector's config. */
export * as ConfigDuration from "./ConfigDuration.ts"

/** Annotations on config fields: `ConfigField.secret` marks a credential. */
export * as ConfigField from "./ConfigField.ts"

/** The plugin contract and `Connector.make`. */
export * as Connector from "./Connector.ts"

/** The typed error of sources. */
export * as ConnectorError from "./ConnectorError.ts"

/** The outbound HTTP stack of connectors: undici through the environment's proxy, effect's `HttpClient` on it. */
export * as Http from "./Http.ts"

/** Sockets through HTTP(S)_PROXY / NO_PROXY (CONNECT tunnels), for clients that open their own (WebSockets). */
export * as Proxy from "./Proxy.ts"

/** Finds connectors by type or module path. */
export * as ConnectorRegistry from "./ConnectorRegistry.ts"

/** First events of a source, for `warden source preview`. */
export * as Preview from "./Preview.ts"

/** A running source. */
export * as Source from "./Source.ts"

/** The events a source emits. */
export * as SourceEvent from "./SourceEvent.ts"

/** Imports a plugin module by type or path (what the connector and sink registries share). */
export * as PluginModule from "./PluginModule.ts"

/** The daemon's side of a push source: the durable intake and the decision of a checked item. */
export * as PushHost from "./PushHost.ts"
