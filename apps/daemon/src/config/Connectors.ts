/**
 * How the daemon finds connectors: by dynamic import from the daemon's own location, so that
 * `@warden/connector-<type>` resolves against the daemon's `node_modules`.
 *
 * A connector shares the daemon's copy of `effect` and `@warden/connector`, whatever it has installed
 * itself: a plugin built in its own folder (`npm install @warden/connector effect`) would otherwise run
 * on a second Effect, whose schemas, durations and redacted values the daemon's do not recognise
 * (issue 23: "Cannot convert a Symbol value to a string"). Before the first connector is imported, a
 * module resolve hook sends every import of those packages to the daemon's own copy.
 */
import { registerHooks } from "node:module"
import { type Connector, ConnectorRegistry } from "@warden/connector"
import { Effect, type Layer } from "effect"
import { suggest } from "./internal/Problems.ts"

/** Packages a plugin (connector or sink) must share with the daemon: the runtime and the SDKs its values come from. */
const SHARED = /^(?:effect|@warden\/connector|@warden\/sink)(?:\/.*)?$/u

let sharing = false

/**
 * Makes every later `import`/`require` of `effect` or `@warden/connector` (and their subpaths) in this
 * process resolve from the daemon's location, so a plugin's own copies are never loaded. Idempotent.
 */
export const shareDaemonPackages = (): void => {
  if (sharing) return
  sharing = true
  const daemon = import.meta.url
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      SHARED.test(specifier) && context.parentURL !== daemon
        ? nextResolve(specifier, { ...context, parentURL: daemon })
        : nextResolve(specifier, context)
  })
}

/** Imports a module from the daemon's location (the daemon never imports a connector statically). */
export const importModule = (specifier: string): Promise<unknown> => {
  shareDaemonPackages()
  return import(specifier)
}

/** First-party connector types, each published as `@warden/connector-<type>`. */
export const KNOWN_TYPES: ReadonlyArray<string> = ["rss", "discord", "youtube", "nats", "http"]

/**
 * What to say when `type: X` finds no package: a first-party type names the exact npm package to
 * install next to the daemon; anything else gets the closest first-party type and the `module:` way.
 */
export const notFoundMessage = (type: string): string => {
  const pkg = ConnectorRegistry.packageName(type)
  if (KNOWN_TYPES.includes(type)) {
    return `connector type '${type}' is the npm package ${pkg}, which is not installed: run \`npm install ${pkg}\` where @warden/daemon is installed`
  }
  const hint = suggest(type, KNOWN_TYPES)
  return `unknown connector type '${type}'${hint === undefined ? "" : `; did you mean ${hint}?`} (first-party types: ${KNOWN_TYPES.join(", ")}; type '${type}' would be the npm package ${pkg}; a third-party plugin is loaded with \`module: ./path.js\`)`
}

/** Registry options for a config file in `baseDirectory`. */
export const registryOptions = (
  baseDirectory: string,
  builtins?: ReadonlyArray<Connector.Connector> | undefined
): ConnectorRegistry.Options => ({ importModule, baseDirectory, builtins })

/** Resolves one connector reference (`{ type }` or `{ module }`) for a config file in `baseDirectory`. */
export const resolve = (
  baseDirectory: string,
  ref: ConnectorRegistry.ConnectorRef,
  builtins?: ReadonlyArray<Connector.Connector> | undefined
): Effect.Effect<Connector.Connector, ConnectorRegistry.ConnectorNotFound | ConnectorRegistry.InvalidConnectorModule> =>
  ConnectorRegistry.resolve(registryOptions(baseDirectory, builtins), ref).pipe(
    Effect.catchTag("ConnectorNotFound", (error) =>
      "type" in ref
        ? Effect.fail(
            new ConnectorRegistry.ConnectorNotFound({ specifier: error.specifier, message: notFoundMessage(ref.type) })
          )
        : Effect.fail(error)
    )
  )

/** The registry service for a config file in `baseDirectory` (what the engine should provide). */
export const layer = (
  baseDirectory: string,
  builtins?: ReadonlyArray<Connector.Connector> | undefined
): Layer.Layer<ConnectorRegistry.ConnectorRegistry> =>
  ConnectorRegistry.ConnectorRegistry.layer(registryOptions(baseDirectory, builtins))
