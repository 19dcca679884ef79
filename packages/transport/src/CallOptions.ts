/**
 * Settings of the calls made under it, for one call or a block of them
 * (`Effect.provideService(Transport.CallOptions, { maxAttempts: 1 })`): what the Promise clients'
 * per-request `maxRetries` and `requestId` use. A module of its own so that the Promise clients
 * reach it without loading the transport.
 */
import * as Context from "effect/Context"

/** The per-call settings the transport reads; empty by default. */
export const CallOptions = Context.Reference<{
  /** Attempts in all for a call, instead of the configured `retry.maxAttempts`. */
  readonly maxAttempts?: number | undefined
  /** The `x-request-id` to send instead of a random UUID (e.g. the caller's own trace id). */
  readonly requestId?: string | undefined
}>("@warden/transport/CallOptions", { defaultValue: () => ({}) })
