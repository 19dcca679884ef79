/**
 * Settings of the calls made under it, for one call or a block of them
 * (`Effect.provideService(Transport.CallOptions, { maxAttempts: 1 })`): what the Promise clients'
 * per-request `maxRetries` and `requestId` use. A module of its own so that the Promise clients
 * reach it without loading the transport.
 */
import * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"

/** The per-call settings the transport reads; empty by default. */
export const CallOptions = Context.Reference<{
  /** Attempts in all for a call, instead of the configured `retry.maxAttempts`. */
  readonly maxAttempts?: number | undefined
  /** The `x-request-id` to send instead of a random UUID (e.g. the caller's own trace id). */
  readonly requestId?: string | undefined
  /**
   * A graceful stop. Once it is done, the call starts no new attempt: it stops waiting for the limiter
   * or a retry's delay and ends interrupted. An attempt already on the wire is waited for and its
   * answer returned: the API has counted (and billed) it, so a caller that stops without losing
   * answers (the daemon's shutdown records them) completes this instead of interrupting the call.
   */
  readonly stop?: Deferred.Deferred<void> | undefined
}>("@warden/transport/CallOptions", { defaultValue: () => ({}) })
