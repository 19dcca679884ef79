/**
 * Imports a Warden plugin module, by `type` (an installed package such as `@warden/connector-<type>` or
 * `@warden/sink-<type>`) or by a `module` path relative to the config file: the part both registries
 * share (`ConnectorRegistry`, and `SinkRegistry` in `@warden/sink`). The caller supplies `importModule`
 * so that resolution happens from its own `node_modules` (pnpm's strict layout).
 *
 * @since 0.2.0
 */
import { resolve as resolvePath } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect } from "effect"

/** Where a plugin comes from: a type name or a module path. */
export type Ref = { readonly type: string } | { readonly module: string }

/** How to import and where `module:` paths are relative to. */
export interface ImportOptions {
  /** Imports a module from the caller's location, e.g. `(s) => import(s)` written in the daemon. */
  readonly importModule: (specifier: string) => Promise<unknown>
  /** Directory relative `module:` paths are resolved against (usually the config file's directory). */
  readonly baseDirectory: string
}

/** Why a plugin module did not load: not installed / no such file, or it failed while loading. */
export interface LoadFailure {
  readonly _tag: "NotFound" | "Invalid"
  readonly specifier: string
  readonly message: string
}

/** A loaded module, the specifier it was imported as, and how to name it in a message. */
export interface Loaded {
  readonly module: unknown
  readonly specifier: string
  readonly shown: string
}

const isModuleNotFound = (error: unknown, specifier: string): boolean => {
  if (typeof error !== "object" || error === null) return false
  const code = (error as { code?: unknown }).code
  const message = String((error as { message?: unknown }).message ?? "")
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND" && code !== "ERR_LOAD_URL") return false
  // Only when the plugin itself is missing, not one of its own dependencies ("Cannot find package
  // 'x' imported from .../connector-rss/..." names the dependency in quotes, the plugin unquoted).
  const names = [specifier]
  if (specifier.startsWith("file:")) names.push(fileURLToPath(specifier))
  return names.some((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`))
}

/** The cache key of a reference: its type, or its module's absolute path. */
export const cacheKey = (options: ImportOptions, ref: Ref): string =>
  "type" in ref ? `type:${ref.type}` : `module:${resolvePath(options.baseDirectory, ref.module)}`

/**
 * Imports the module of `ref`: `packageName(type)`, or the `module` path as a file URL. `kind` names
 * the plugin in messages (`connector`, `sink`).
 */
export const load = (
  options: ImportOptions,
  ref: Ref,
  naming: { readonly kind: string; readonly packageName: (type: string) => string }
): Effect.Effect<Loaded, LoadFailure> => {
  const byType = "type" in ref
  const specifier = byType
    ? naming.packageName(ref.type)
    : pathToFileURL(resolvePath(options.baseDirectory, ref.module)).href
  const shown = byType ? specifier : ref.module
  return Effect.tryPromise({
    try: () => options.importModule(specifier),
    catch: (error): LoadFailure =>
      isModuleNotFound(error, specifier)
        ? {
            _tag: "NotFound",
            specifier,
            message: byType
              ? `${naming.kind} type '${ref.type}' needs the package ${specifier}: run \`pnpm add ${specifier}\``
              : `${naming.kind} module '${shown}' not found (resolved to ${specifier})`
          }
        : {
            _tag: "Invalid",
            specifier,
            message: `${naming.kind} module '${shown}' failed to load: ${error instanceof Error ? error.message : String(error)}`
          }
  }).pipe(Effect.map((module) => ({ module, specifier, shown })))
}

/**
 * The plugin a module exports: as `name` (`connector`, `sink`), else as `default` (itself one, or an
 * object holding `name`).
 */
export const pick = (module: unknown, name: string, is: (u: unknown) => boolean): unknown => {
  if (typeof module !== "object" || module === null) return undefined
  const m = module as Record<string, unknown>
  if (m[name] !== undefined) return m[name]
  const d = m.default
  if (is(d)) return d
  if (typeof d === "object" && d !== null && name in d) return (d as Record<string, unknown>)[name]
  return d
}
