/**
 * The plugin contract: a `Connector` turns a decoded config into a scoped {@link Source}.
 *
 * @since 0.1.0
 */
import { Effect, Schema, type Scope } from "effect"
import { ActionKind } from "./Action.ts"
import * as ConfigField from "./ConfigField.ts"
import { ConnectorError } from "./ConnectorError.ts"
import type { Source } from "./Source.ts"

/**
 * What a connector can do, declared up front so the daemon can validate policies at config time.
 * - `actions`: the action kinds `Source.act` supports (empty: read-only source).
 * - `duplicates`: `"possible"` when resuming from a checkpoint may repeat events already emitted
 *   (the daemon dedupes by reference + content hash); `"never"` when it cannot.
 * - `contentTypes`: which `content.type`s the source emits.
 * - `push` (optional): the source is handed its items by clients that may be waiting on each one's
 *   decision (`PushHost.check`): the daemon sends its events on as soon as they are read instead of
 *   waiting up to its batching window to fill a batch (a read still takes every item waiting).
 */
export const Capabilities = Schema.Struct({
  actions: Schema.Array(ActionKind),
  duplicates: Schema.Literals(["never", "possible"]),
  contentTypes: Schema.Array(Schema.Literals(["text", "image", "username"])),
  push: Schema.optionalKey(Schema.Boolean)
})
/** @see {@link Capabilities} */
export type Capabilities = typeof Capabilities.Type

/** A config schema: decodes the user's YAML/JSON into `Config`, with no services needed. */
export type ConfigSchema<Config> = Schema.Codec<Config, any, never, never>

/**
 * A connector plugin. `type` is the name users write in their config (`type: rss`); a package
 * `@warden/connector-<type>` exports it as `connector` (or `default`).
 */
export interface Connector<Config = any> {
  readonly type: string
  readonly configSchema: ConfigSchema<Config>
  readonly capabilities: Capabilities
  readonly make: (config: Config) => Effect.Effect<Source, ConnectorError, Scope.Scope>
}

/** Defines a connector, inferring `Config` from its schema. */
export const make = <S extends ConfigSchema<any>>(options: {
  readonly type: string
  readonly configSchema: S
  readonly capabilities: Capabilities
  readonly make: (config: S["Type"]) => Effect.Effect<Source, ConnectorError, Scope.Scope>
}): Connector<S["Type"]> => ({
  type: options.type,
  configSchema: options.configSchema,
  capabilities: options.capabilities,
  make: options.make
})

/**
 * Decodes a user's config for a connector. Every problem is reported at once; the message names each
 * offending field (e.g. `feeds[0].url`). Fails with `reason: "InvalidConfig"`, not retryable.
 */
export const decodeConfig = <Config>(
  connector: Connector<Config>,
  input: unknown
): Effect.Effect<Config, ConnectorError> =>
  Schema.decodeUnknownEffect(connector.configSchema, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Effect.mapError(
      (error) =>
        new ConnectorError({
          source: connector.type,
          reason: "InvalidConfig",
          retryable: false,
          message: `invalid ${connector.type} source config: ${error.message}`
        })
    )
  )

/** Decodes the config and makes the source, in the caller's scope. */
export const makeSource = <Config>(
  connector: Connector<Config>,
  input: unknown
): Effect.Effect<Source, ConnectorError, Scope.Scope> =>
  Effect.flatMap(decodeConfig(connector, input), (config) => connector.make(config))

/**
 * The JSON Schema (draft 2020-12) of a connector's config, for `warden config schema` and editors:
 * descriptions included, fields marked {@link ConfigField.secret} with `writeOnly: true`. Excess
 * properties are rejected, as {@link decodeConfig} does.
 */
export const configJsonSchema = (connector: Connector): Record<string, unknown> =>
  ConfigField.jsonSchema(connector.configSchema)

const isFunction = (u: unknown): u is Function => typeof u === "function"

/** The runtime shape of a connector, used to validate dynamically imported modules. */
export const ConnectorShape = Schema.Struct({
  type: Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u)),
  configSchema: Schema.declare(Schema.isSchema, { expected: "an effect Schema" }),
  capabilities: Capabilities,
  make: Schema.declare(isFunction, { expected: "a function (config) => Effect<Source>" })
})

/** Whether an unknown value is a usable connector. */
export const isConnector = (u: unknown): u is Connector => Schema.is(ConnectorShape)(u)
