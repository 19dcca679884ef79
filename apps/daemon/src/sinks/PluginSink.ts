/**
 * A sink declared with the sink SDK (`@warden/sink`), built in or a plugin, as the sink worker drives
 * it: made in the daemon's scope from its decoded config, with the daemon as its host, its answers
 * (delivered, retryable, permanent) as the worker's (`undefined`, `retryable`, `permanent`).
 */
import type { DeliveryResult as Answer, Sink as Plugin, SinkError } from "@warden/sink"
import { Effect, type Scope } from "effect"
import { type DeliveryResult, permanent, retryable, type Sink } from "./Sink.ts"

/** A sink's answer as the worker's result. */
export const resultOf = (answer: Answer.DeliveryResult): DeliveryResult =>
  answer._tag === "Delivered"
    ? undefined
    : answer._tag === "Retryable"
      ? retryable(answer.reason)
      : permanent(answer.reason)

/** The worker's view of a made sink (its retry window: the daemon's default until FromConfig sets it). */
export const of = (plugin: Plugin.Sink, deliverer: Plugin.Deliverer, options: { readonly name: string }): Sink => ({
  name: options.name,
  type: plugin.type,
  batchSize: plugin.batchSize,
  deliver: (records) => Effect.map(deliverer.deliver(records), (answers) => answers.map(resultOf))
})

/** Makes a sink from its decoded config, in the caller's scope (closed at shutdown). */
export const make = (
  plugin: Plugin.Sink,
  config: unknown,
  host: Plugin.SinkHost
): Effect.Effect<Sink, SinkError, Scope.Scope> =>
  Effect.map(plugin.make(config, host), (deliverer) => of(plugin, deliverer, { name: host.name }))
