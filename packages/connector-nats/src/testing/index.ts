/**
 * Test helpers of the NATS connector: a real `nats-server` with JetStream on a free port.
 *
 * @since 0.1.0
 */

/** Start, stop and restart a local `nats-server`; create streams, publish, read a consumer's state. */
export * as NatsServer from "./NatsServer.ts"
