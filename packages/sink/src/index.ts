/**
 * `@warden/sink`: the sink SDK of Warden, beside the connector SDK (`@warden/connector`).
 *
 * @since 0.1.0
 */

/** Annotations on config fields (the connector SDK's own): `ConfigField.secret` marks a credential, `ConfigField.path` a file path. */
export { ConfigField } from "@warden/connector"

/** What became of one delivered record: delivered, retryable or permanent failure. */
export * as DeliveryResult from "./DeliveryResult.ts"

/** The plugin contract and `Sink.make`. */
export * as Sink from "./Sink.ts"

/** The typed error of making a sink. */
export { SinkError } from "./SinkError.ts"

/** A verdict record as a sink receives it, and its delivery id. */
export * as SinkRecord from "./SinkRecord.ts"

/** Finds sinks by type or module path. */
export * as SinkRegistry from "./SinkRegistry.ts"

/** A sink's tables in the state database, declared for erasure and retention. */
export * as SinkStore from "./SinkStore.ts"
