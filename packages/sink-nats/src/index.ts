/**
 * `@warden/sink-nats`: the NATS JetStream sink of Warden.
 *
 * @since 0.1.0
 */

/** The sink, its config and its subject's placeholder. */
export * as NatsSink from "./NatsSink.ts"

/** The sink definition, under the name the registry looks for. */
export { sink } from "./NatsSink.ts"
