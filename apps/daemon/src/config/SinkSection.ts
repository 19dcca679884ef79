/**
 * A sink entry of `warden.yaml`: the settings every sink has (name, content, retry window) plus the
 * sink's own keys, decoded by its schema later (SinkChecks); and the decoded `Sink`.
 */
import { type Duration, Schema } from "effect"
import { durationWithDefault, withDefault } from "../domain/internal/Schemas.ts"

/**
 * The settings every sink entry has, whatever its type (one place, so a sink declared by a plugin
 * reuses them): `name` (default: the type), `content` (whether its records carry the content
 * text; `log.content` governs the logs only) and `retry.window` (how long a failed delivery is
 * retried before it goes to the dead letters).
 */
export const SinkBase = Schema.Struct({
  name: Schema.optionalKey(
    Schema.String.check(
      Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/u, { message: "must be letters, digits, '-', '_' or '.'" })
    )
  ),
  content: Schema.Boolean.pipe(withDefault(false)).annotate({
    description:
      "Whether this sink's verdict records carry the content text (default false: the locator and the verdict only)"
  }),
  retry: Schema.Struct({
    window: durationWithDefault("24 hours", "1 second")
  }).pipe(withDefault({}))
})

/** The keys of a sink entry that are the daemon's; the others are the sink's own, decoded by its schema. */
export const SINK_KEYS: ReadonlyArray<string> = ["type", "module", ...Object.keys(SinkBase.fields)]

/**
 * A sink as written: `type` (built in: stdout, jsonl, webhook, sql; any other the installed package
 * `@warden/sink-<type>`) or `module` (a plugin file), the settings every sink has, and the sink's own
 * keys, decoded by the sink's config schema once it is found (SinkChecks).
 */
export const SinkEntry = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u))),
    module: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
    ...SinkBase.fields
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).check(
  Schema.makeFilter(
    (s) =>
      (s.type === undefined) !== (s.module === undefined) || {
        path: ["type"],
        issue: "set exactly one of type (a built-in sink or an installed one) or module (a plugin file)"
      },
    { toJsonSchema: () => ({ oneOf: [{ required: ["type"] }, { required: ["module"] }] }) }
  )
)

/**
 * A sink, decoded: `type` is its sink's (also for a `module:` one), `name` defaults to it, `config`
 * holds its own keys decoded by its schema.
 */
export interface Sink {
  readonly type: string
  readonly module?: string | undefined
  readonly name: string
  readonly content: boolean
  readonly retry: { readonly window: Duration.Duration }
  readonly config: unknown
}

/** The file a sink writes (a jsonl sink's `path`), for the checks and messages that name it. */
export const sinkPath = (sink: Sink): string | undefined => {
  const config = sink.config
  return sink.type === "jsonl" && typeof config === "object" && config !== null && "path" in config
    ? typeof config.path === "string"
      ? config.path
      : undefined
    : undefined
}
