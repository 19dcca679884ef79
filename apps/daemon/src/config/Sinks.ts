/**
 * How the daemon finds sinks, as it finds connectors (`Connectors.ts`): a built-in by `type` (stdout,
 * jsonl, webhook, sql), any other `type: X` as the installed package `@warden/sink-X`, or a plugin
 * file by `module:`, imported from the daemon's location with the daemon's own `effect`,
 * `@warden/connector` and `@warden/sink` (Connectors.shareDaemonPackages).
 */
import { type Sink, SinkRegistry } from "@warden/sink"
import { Effect } from "effect"
import * as JsonlSink from "../sinks/JsonlSink.ts"
import * as SqlSink from "../sinks/SqlSink.ts"
import * as StdoutSink from "../sinks/StdoutSink.ts"
import * as WebhookSink from "../sinks/WebhookSink.ts"
import { importModule } from "./Connectors.ts"
import { suggest } from "./internal/Problems.ts"

/** The sinks built into the daemon, found by `type` without importing. */
export const BUILTINS: ReadonlyArray<Sink.Sink> = [StdoutSink.sink, JsonlSink.sink, WebhookSink.sink, SqlSink.sink]

/** First-party sink types published as `@warden/sink-<type>`. */
export const KNOWN_TYPES: ReadonlyArray<string> = ["nats"]

/** What to say when `type: X` is neither built in nor installed. */
export const notFoundMessage = (type: string): string => {
  const pkg = SinkRegistry.packageName(type)
  if (KNOWN_TYPES.includes(type))
    return `sink type '${type}' is the npm package ${pkg}, which is not installed: run \`npm install ${pkg}\` where @warden/daemon is installed`
  const types = [...BUILTINS.map((s) => s.type), ...KNOWN_TYPES]
  const hint = suggest(type, types)
  return `unknown sink type '${type}'${hint === undefined ? "" : `; did you mean ${hint}?`} (built in: ${BUILTINS.map((s) => s.type).join(", ")}; type '${type}' would be the npm package ${pkg}; a third-party sink is loaded with \`module: ./path.js\`)`
}

/** Resolves one sink reference for a config file in `baseDirectory`. */
export const resolve = (
  baseDirectory: string,
  ref: SinkRegistry.SinkRef
): Effect.Effect<Sink.Sink, SinkRegistry.SinkNotFound | SinkRegistry.InvalidSinkModule> =>
  SinkRegistry.resolve({ importModule, baseDirectory, builtins: BUILTINS }, ref).pipe(
    Effect.catchTag("SinkNotFound", (error) =>
      "type" in ref
        ? Effect.fail(new SinkRegistry.SinkNotFound({ specifier: error.specifier, message: notFoundMessage(ref.type) }))
        : Effect.fail(error)
    )
  )
