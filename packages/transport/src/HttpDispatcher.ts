/**
 * The undici `Dispatcher` (connection pool) the transport sends on: one keep-alive pool per layer
 * instance, closed with its scope. Our own service rather than `@effect/platform-node`'s, so that a
 * service importing `@warden/v1` does not install platform-node's peers (`redis`, `ws`) for an HTTP
 * pool. When `HTTP_PROXY`, `HTTPS_PROXY` (or their lower-case forms) are set, the pool goes through
 * the proxy and honours `NO_PROXY`, read by `@warden/core/proxy` as every Warden client reads them.
 *
 * undici is required when the first pool is made, not imported: it is CommonJS, about a hundred
 * modules (more than `import("@warden/v1")` loads in all), and an esbuild `--format=esm` bundle of an
 * app that inlines it fails at start (`Dynamic require of "node:assert"`). Through `createRequire`
 * esbuild leaves it out of the bundle and Node loads it from `node_modules` when a client is made. A
 * client given its own `dispatcher` never loads it here: an app that imports undici itself for that
 * bundles it whole (README, "Bundling").
 *
 * Only the agent the pool is made of and the request API are required (`lib/dispatcher/agent.js`,
 * `lib/api`: 30 modules), not undici's index (109: fetch, WebSocket, EventSource, the cache and mock
 * agents): 2.4 MB less heap in `warden run` (undici 8 has no `exports` map, so the files are
 * reachable). Should a later undici move them, the index is required instead.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { createRequire } from "node:module"
import * as OutboundProxy from "@warden/core/proxy"
import type { Agent, Dispatcher } from "undici"

type Undici = typeof import("undici")
type AgentClass = Undici["Agent"]
type EnvHttpProxyAgentClass = Undici["EnvHttpProxyAgent"]

/** `require`, resolved from this module's file (see {@link loadDispatcherClasses}). */
const requireHere = (): NodeJS.Require => {
  // `import.meta.url` is empty in an esbuild CJS bundle: resolve from the bundle's own file there
  // (`__filename`), so a bundle run from another directory still finds the node_modules beside it.
  const from = import.meta.url ?? (typeof __filename === "string" ? __filename : `${process.cwd()}/`)
  return createRequire(from)
}

interface DispatcherClasses {
  readonly Agent: AgentClass
  readonly EnvHttpProxyAgent: () => EnvHttpProxyAgentClass
}

/**
 * undici's `Agent` from its own file, with what undici's index gives every dispatcher: the request
 * API (`request`, `stream`, `pipeline`, `connect`, `upgrade`), assigned to `Dispatcher.prototype` as
 * the index does. Should a later undici move a file, the index is required instead.
 */
const loadDispatcherClasses = (): DispatcherClasses => {
  const require = requireHere()
  const index = (): Undici => require("undici") as Undici
  /** The class `name` from its own file, undefined should the file have moved or changed. */
  const ownClass = (file: string, name: string): unknown => {
    try {
      const exported = require(`undici/lib/dispatcher/${file}`) as unknown
      return typeof exported === "function" && exported.name === name ? exported : undefined
    } catch {
      return undefined
    }
  }
  try {
    const Dispatcher = ownClass("dispatcher.js", "Dispatcher")
    const api = require("undici/lib/api/index.js") as Record<string, unknown> | undefined
    const Agent = ownClass("agent.js", "Agent")
    if (typeof Dispatcher === "function" && typeof api?.request === "function" && Agent !== undefined) {
      Object.assign(Dispatcher.prototype, api)
      return {
        Agent: Agent as AgentClass,
        EnvHttpProxyAgent: () =>
          (ownClass("env-http-proxy-agent.js", "EnvHttpProxyAgent") as EnvHttpProxyAgentClass | undefined) ??
          index().EnvHttpProxyAgent
      }
    }
  } catch {
    // A later undici without these files: the index below has every class, set up.
  }
  return { Agent: index().Agent, EnvHttpProxyAgent: () => index().EnvHttpProxyAgent }
}

let classes: DispatcherClasses | undefined
/** undici's dispatcher classes, loaded on first use (see the module's comment). */
const dispatcherClasses = (): DispatcherClasses => (classes ??= loadDispatcherClasses())

/** Whether the environment names an HTTP(S) proxy (`@warden/core/proxy`'s rules). */
export const proxyConfigured = (env: NodeJS.ProcessEnv = process.env): boolean => OutboundProxy.configured(env)

/**
 * A new pool: through the environment's proxy when one is set, direct otherwise. The proxy settings
 * are read from `env` by `@warden/core/proxy` (not left to undici, which would read `process.env`),
 * so that the connectors' clients read them the same way.
 */
export const makeUnsafe = (options: Agent.Options = {}, env: NodeJS.ProcessEnv = process.env): Dispatcher => {
  const proxy = OutboundProxy.agentOptions(env)
  return proxy === undefined
    ? new (dispatcherClasses().Agent)(options)
    : new (dispatcherClasses().EnvHttpProxyAgent())({ ...options, ...proxy })
}

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
