/**
 * Finds a sink by `type` (the installed package `@warden/sink-<type>`) or by an explicit `module` path,
 * by dynamic import, exactly as `ConnectorRegistry` finds connectors (the import itself is
 * `PluginModule`'s, shared). The caller supplies `importModule`, so resolution happens from its own
 * `node_modules`; `builtins` are matched by `type` first (the daemon's stdout, jsonl, webhook, sql).
 *
 * @since 0.1.0
 */
import { PluginModule } from "@warden/connector"
import { Effect, Schema } from "effect"
import { isSink, type Sink } from "./Sink.ts"

/** Where a sink comes from: a type name (`{ type: "nats" }`) or a module path (`{ module: "./x.js" }`). */
export const SinkRef = Schema.Union([
  Schema.Struct({ type: Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u)) }),
  Schema.Struct({ module: Schema.String.check(Schema.isNonEmpty()) })
])
/** @see {@link SinkRef} */
export type SinkRef = typeof SinkRef.Type

/** The package name a sink type is installed as. */
export const packageName = (type: string): string => `@warden/sink-${type}`

/** The sink's package (or module file) is not installed / does not exist. */
export class SinkNotFound extends Schema.TaggedError<SinkNotFound>()("SinkNotFound", {
  specifier: Schema.String,
  message: Schema.String
}) {}

/** The module loaded, but does not export a valid sink (or it failed while loading). */
export class InvalidSinkModule extends Schema.TaggedError<InvalidSinkModule>()("InvalidSinkModule", {
  specifier: Schema.String,
  message: Schema.String
}) {}

/** How to import, where `module:` paths are relative to, the sinks known without importing. */
export interface Options extends PluginModule.ImportOptions {
  readonly builtins?: ReadonlyArray<Sink> | undefined
}

/** Resolves a sink reference to a validated sink. */
export const resolve = (options: Options, ref: SinkRef): Effect.Effect<Sink, SinkNotFound | InvalidSinkModule> =>
  Effect.gen(function* () {
    const byType = "type" in ref
    if (byType) {
      const builtin = options.builtins?.find((s) => s.type === ref.type)
      if (builtin !== undefined) return builtin
    }
    const { module, specifier, shown } = yield* PluginModule.load(options, ref, { kind: "sink", packageName }).pipe(
      Effect.mapError((failure) =>
        failure._tag === "NotFound"
          ? new SinkNotFound({ specifier: failure.specifier, message: failure.message })
          : new InvalidSinkModule({ specifier: failure.specifier, message: failure.message })
      )
    )
    const sink = PluginModule.pick(module, "sink", isSink)
    if (!isSink(sink)) {
      return yield* new InvalidSinkModule({
        specifier,
        message: `'${shown}' does not export a sink as \`sink\` or \`default\` (expected { type, configSchema, delivery, batchSize, stores, migrations, make }, see Sink.make)`
      })
    }
    if (byType && sink.type !== ref.type) {
      return yield* new InvalidSinkModule({
        specifier,
        message: `'${shown}' exports a sink of type '${sink.type}', expected '${ref.type}'`
      })
    }
    return sink
  })

/** A resolver caching what it found by type or module path (a config naming one sink twice imports it once). */
export const cached = (options: Options) => {
  const cache = new Map<string, Sink>()
  return (ref: SinkRef): Effect.Effect<Sink, SinkNotFound | InvalidSinkModule> =>
    Effect.suspend(() => {
      const key = PluginModule.cacheKey(options, ref)
      const hit = cache.get(key)
      return hit !== undefined
        ? Effect.succeed(hit)
        : Effect.tap(resolve(options, ref), (s) => Effect.sync(() => cache.set(key, s)))
    })
}
