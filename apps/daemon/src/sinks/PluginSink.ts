/**
 * A sink declared with the sink SDK (`@warden/sink`), built in or a plugin, as the sink worker drives
 * it: made in the daemon's scope from its decoded config, with the daemon as its host.
 */
import type { Sink as Plugin, SinkError } from "@warden/sink"
import { Effect, type Scope } from "effect"
import type { Sink } from "./Sink.ts"

/** Attempts of a record refused for now before it goes to the dead letters (a sink's `maxAttempts` overrides). */
export const DEFAULT_MAX_ATTEMPTS = 10

/** The worker's view of a made sink. */
export const of = (
  plugin: Plugin.Sink,
  deliverer: Plugin.Deliverer,
  options: { readonly name: string; readonly maxAttempts?: number | undefined }
): Sink => ({
  name: options.name,
  type: plugin.type,
  batchSize: plugin.batchSize,
  maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
  deliver: deliverer.deliver
})

/**
 * Makes a sink from its decoded config, in the caller's scope (closed at shutdown). A config with a
 * `maxAttempts` (the webhook's) sets the attempts.
 */
export const make = (
  plugin: Plugin.Sink,
  config: unknown,
  host: Plugin.SinkHost
): Effect.Effect<Sink, SinkError, Scope.Scope> =>
  Effect.map(plugin.make(config, host), (deliverer) => {
    const attempts =
      typeof config === "object" && config !== null && "maxAttempts" in config ? config.maxAttempts : undefined
    return of(plugin, deliverer, { name: host.name, maxAttempts: typeof attempts === "number" ? attempts : undefined })
  })
