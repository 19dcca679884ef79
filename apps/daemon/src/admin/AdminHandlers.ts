/**
 * The handlers of the admin API's groups (`AdminApi.ts`) but governance, review and cluster, which
 * have their own route modules: one layer of the groups in `ProbesHandlers`, `DecisionsHandlers` and
 * `ConsoleHandlers`, given what they need beside the services.
 */
import type { RateLimiter } from "@warden/transport"
import { Layer } from "effect"
import { consoleGroup, signIn } from "./ConsoleHandlers.ts"
import type * as ConsoleSession from "./ConsoleSession.ts"
import { decisions, type SourceFacts } from "./DecisionsHandlers.ts"
import { health, probes } from "./ProbesHandlers.ts"

/**
 * The transport's rate limiter, which the decisions group needs; named here so that the package's
 * declaration file can name it in {@link layer}'s type (as AdminServer.ts does: without a name in this
 * file the declaration build fails with TS2883).
 */
export type NeededRateLimiter = RateLimiter.RateLimiter

/** Every group above, given what they need beside the services. */
export const layer = (options: {
  readonly sessions: ConsoleSession.Sessions
  readonly sinks: ReadonlyArray<string>
  readonly sources: ReadonlyMap<string, SourceFacts>
  /** Every configured rule name (a `rule` filter naming another is a 400). */
  readonly rules: ReadonlyArray<string>
}) =>
  Layer.mergeAll(
    health,
    probes,
    decisions(options.sources, options.rules),
    consoleGroup(options),
    signIn(options.sessions)
  )
