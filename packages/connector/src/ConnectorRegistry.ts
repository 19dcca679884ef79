/**
 * Finds a connector by `type` (the installed package `@warden/connector-<type>`) or by an explicit
 * `module` path (a third-party plugin), by dynamic import.
 *
 * `@warden/connector` cannot import connector packages itself: pnpm's strict `node_modules` only lets a
 * package import its own dependencies. The caller (the daemon) therefore supplies `importModule`,
 * written in its own module so that resolution happens from the daemon's `node_modules`:
 *
 * ```ts
 * ConnectorRegistry.layer({ importModule: (specifier) => import(specifier), baseDirectory: configDir })
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import { type Connector, isConnector } from "./Connector.ts"
import * as PluginModule from "./PluginModule.ts"

/** Where a connector comes from: a type name (`{ type: "rss" }`) or a module path (`{ module: "./x.js" }`). */
export const ConnectorRef = Schema.Union([
  Schema.Struct({ type: Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u)) }),
  Schema.Struct({ module: Schema.String.check(Schema.isNonEmpty()) })
])
/** @see {@link ConnectorRef} */
export type ConnectorRef = typeof ConnectorRef.Type

/** The package name a connector type is installed as. */
export const packageName = (type: string): string => `@warden/connector-${type}`

/** The connector's package (or module file) is not installed / does not exist. */
export class ConnectorNotFound extends Schema.TaggedError<ConnectorNotFound>()("ConnectorNotFound", {
  specifier: Schema.String,
  message: Schema.String
}) {}

/** The module loaded, but does not export a valid connector (or it failed while loading). */
export class InvalidConnectorModule extends Schema.TaggedError<InvalidConnectorModule>()("InvalidConnectorModule", {
  specifier: Schema.String,
  message: Schema.String
}) {}

/** Options of the registry: how to import, where `module:` paths are relative to, built-in connectors. */
export interface Options {
  /** Imports a module from the caller's location, e.g. `(s) => import(s)` written in the daemon. */
  readonly importModule: (specifier: string) => Promise<unknown>
  /** Directory relative `module:` paths are resolved against (usually the config file's directory). */
  readonly baseDirectory: string
  /** Connectors known without importing (tests, bundled builds); matched by `type` first. */
  readonly builtins?: ReadonlyArray<Connector> | undefined
}

/** Resolves a connector reference to a validated connector. */
export const resolve = (
  options: Options,
  ref: ConnectorRef
): Effect.Effect<Connector, ConnectorNotFound | InvalidConnectorModule> =>
  Effect.gen(function* () {
    const byType = "type" in ref
    if (byType) {
      const builtin = options.builtins?.find((c) => c.type === ref.type)
      if (builtin !== undefined) return builtin
    }
    const { module, specifier, shown } = yield* PluginModule.load(options, ref, {
      kind: "connector",
      packageName
    }).pipe(
      Effect.mapError((failure) =>
        failure._tag === "NotFound"
          ? new ConnectorNotFound({ specifier: failure.specifier, message: failure.message })
          : new InvalidConnectorModule({ specifier: failure.specifier, message: failure.message })
      )
    )
    const connector = PluginModule.pick(module, "connector", isConnector)
    if (!isConnector(connector)) {
      return yield* new InvalidConnectorModule({
        specifier,
        message: `'${shown}' does not export a connector as \`connector\` or \`default\` (expected { type, configSchema, capabilities, make }, see Connector.make)`
      })
    }
    if (byType && connector.type !== ref.type) {
      return yield* new InvalidConnectorModule({
        specifier,
        message: `'${shown}' exports a connector of type '${connector.type}', expected '${ref.type}'`
      })
    }
    return connector
  })

/** The registry service the daemon uses to find connectors. */
export class ConnectorRegistry extends Context.Service<
  ConnectorRegistry,
  {
    readonly resolve: (ref: ConnectorRef) => Effect.Effect<Connector, ConnectorNotFound | InvalidConnectorModule>
  }
>()("@warden/connector/ConnectorRegistry") {
  /** A registry importing with the caller's `importModule`; resolved connectors are cached by specifier. */
  static readonly layer = (options: Options): Layer.Layer<ConnectorRegistry> =>
    Layer.sync(ConnectorRegistry, () => {
      const cache = new Map<string, Connector>()
      return ConnectorRegistry.of({
        resolve: Effect.fn("ConnectorRegistry.resolve")(function* (ref: ConnectorRef) {
          const key = PluginModule.cacheKey(options, ref)
          const cached = cache.get(key)
          if (cached !== undefined) return cached
          const connector = yield* resolve(options, ref)
          cache.set(key, connector)
          return connector
        })
      })
    })
}
