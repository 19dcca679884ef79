/**
 * `@warden/connector-nats`: the NATS JetStream connector of Warden.
 *
 * @since 0.1.0
 */

/** The checkpoint schema. */
export * as NatsCheckpoint from "./NatsCheckpoint.ts"

/** The config schema. */
export * as NatsConfig from "./NatsConfig.ts"

/** How a NATS plugin connects: config fields and client options (shared with the NATS sink). */
export * as NatsConnection from "./NatsConnection.ts"

/** The connector, its source and layers. */
export * as NatsConnector from "./NatsConnector.ts"

/** The message format and its mapping to events. */
export * as NatsMessage from "./NatsMessage.ts"

/** The delivered messages waiting for their acknowledgement. */
export * as PendingAcks from "./PendingAcks.ts"

/** The connector definition, under the name the registry looks for. */
export { connector, layer, layerConfig, make } from "./NatsConnector.ts"
