/**
 * The undici `Dispatcher` (connection pool) the transport sends on: one keep-alive pool per layer
 * instance, closed with its scope. Our own service rather than `@effect/platform-node`'s, so that a
 * service importing `@warden/v1` does not install platform-node's peers (`redis`, `ws`) for an HTTP
 * pool. When `HTTP_PROXY`, `HTTPS_PROXY` (or their lower-case forms) are set, the pool goes through
 * the proxy and honours `NO_PROXY`, as curl and undici's `EnvHttpProxyAgent` do.
 *
 * undici is required when the first pool is made, not imported: it is CommonJS, about a hundred
 * modules (more than `import("@warden/v1")` loads in all), and an esbuild `--format=esm` bundle of an
 * app that inlines it fails at start (`Dynamic require of "node:assert"`). Through `createRequire`
 * esbuild leaves it out of the bundle and Node loads it from `node_modules` when a client is made. A
 * client given its own `dispatcher` never loads it here: an app that imports undici itself for that
 * bundles it whole (README, "Bundling").
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { createRequire } from "node:module"
import type { Agent, Dispatcher } from "undici"

let undici: typeof import("undici") | undefined
/** undici, loaded on first use (see the module's comment). */
const loadUndici = (): typeof import("undici") => {
  // `import.meta.url` is empty in an esbuild CJS bundle: resolve from the bundle's own file there
  // (`__filename`), so a bundle run from another directory still finds the node_modules beside it.
  const from = import.meta.url ?? (typeof __filename === "string" ? __filename : `${process.cwd()}/`)
  undici ??= createRequire(from)("undici") as typeof import("undici")
  return undici
}

const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] as const

/** Whether the environment names an HTTP(S) proxy. */
export const proxyConfigured = (env: NodeJS.ProcessEnv = process.env): boolean =>
  PROXY_VARIABLES.some((name) => (env[name] ?? "") !== "")

/** A new pool: through the environment's proxy when one is set, direct otherwise. */
export const makeUnsafe = (options: Agent.Options = {}, env: NodeJS.ProcessEnv = process.env): Dispatcher =>
  proxyConfigured(env) ? new (loadUndici().EnvHttpProxyAgent)(options) : new (loadUndici().Agent)(options)

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
