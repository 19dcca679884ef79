/**
 * The undici `Dispatcher` (connection pool) the transport sends on: one keep-alive pool per layer
 * instance, closed with its scope. Our own service rather than `@effect/platform-node`'s, so that a
 * service importing `@warden/v1` does not install platform-node's peers (`redis`, `ws`) for an HTTP
 * pool. When `HTTP_PROXY`, `HTTPS_PROXY` (or their lower-case forms) are set, the pool goes through
 * the proxy and honours `NO_PROXY`, as curl and undici's `EnvHttpProxyAgent` do.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { Agent, type Dispatcher, EnvHttpProxyAgent } from "undici"

const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] as const

/** Whether the environment names an HTTP(S) proxy. */
export const proxyConfigured = (env: NodeJS.ProcessEnv = process.env): boolean =>
  PROXY_VARIABLES.some((name) => (env[name] ?? "") !== "")

/** A new pool: through the environment's proxy when one is set, direct otherwise. */
export const makeUnsafe = (options: Agent.Options = {}, env: NodeJS.ProcessEnv = process.env): Dispatcher =>
  proxyConfigured(env) ? new EnvHttpProxyAgent(options) : new Agent(options)

/** A pool scoped to the current scope (destroyed when it closes). */
export const make = (options: Agent.Options = {}): Effect.Effect<Dispatcher, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => makeUnsafe(options)),
    (dispatcher) => Effect.promise(() => dispatcher.destroy())
  )

/** The undici dispatcher the transport uses; provide one to share a pool with other clients. */
export class HttpDispatcher extends Context.Service<HttpDispatcher, Dispatcher>()("@warden/transport/HttpDispatcher") {
  /** A keep-alive pool of its own (through the environment's proxy if one is set). */
  static readonly layer: Layer.Layer<HttpDispatcher> = Layer.effect(HttpDispatcher, make())
  /** A pool with these undici `Agent` options (TLS, `connect.socketPath`, pool sizes, ...). */
  static readonly layerOptions = (options: Agent.Options): Layer.Layer<HttpDispatcher> =>
    Layer.effect(HttpDispatcher, make(options))
  /** An existing dispatcher (e.g. undici's global one), not closed by the layer. */
  static readonly layerFrom = (dispatcher: Dispatcher): Layer.Layer<HttpDispatcher> =>
    Layer.succeed(HttpDispatcher, dispatcher)
}
