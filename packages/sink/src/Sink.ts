/**
 * The sink contract: a `Sink` turns a decoded config into a scoped deliverer of verdict records.
 *
 * ```ts
 * export const sink = Sink.make({
 *   type: "nats",                       // `type: nats` in a config, package @warden/sink-nats
 *   configSchema: Config,               // the spec: decoding, `warden config schema`, secrets marked
 *   delivery: "idempotent",             // a redelivered record is not repeated downstream
 *   make: (config, host) => ...         // Effect<Deliverer, SinkError, Scope>
 * })
 * ```
 *
 * The daemon drives delivery: it hands `deliver` batches of at most `batchSize` records from the sink's
 * outbox and, per record, forgets it (`Delivered`), retries it with backoff (`Retryable`) or moves it
 * to the dead letters (`Permanent`). A record may be handed over again after a crash (at-least-once):
 * `delivery: "idempotent"` says the sink (or its receiver, by the record's delivery id) drops repeats.
 *
 * @since 0.1.0
 */
import { ConfigField } from "@warden/connector"
import { Effect, Schema, type Scope } from "effect"
import { Migrator, type SqlClient } from "effect/sql"
import type { DeliveryResult } from "./DeliveryResult.ts"
import { SinkError } from "./SinkError.ts"
import type { SinkRecord } from "./SinkRecord.ts"
import { SinkStore } from "./SinkStore.ts"

/** A config schema: decodes the user's YAML/JSON into `Config`, with no services needed. */
export type ConfigSchema<Config> = Schema.Codec<Config, any, never, never>

/** A sink's own migrations, by id (`0001_create_table`), run on the state database in its namespace. */
export type Migrations = Readonly<Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>>

/** What the daemon gives a sink it makes. */
export interface SinkHost {
  /** The sink's `name` in the config, for its messages. */
  readonly name: string
  /** The config path of one of the sink's fields (`path` → `sinks[2].path`), for a failure naming it. */
  readonly setting: (field: string) => string
  /** The state database, migrated (the sink's own migrations included): where declared `stores` live. */
  readonly sql: SqlClient.SqlClient | undefined
}

/** A made sink: delivers batches, one result per record and in order. Never fails as a whole. */
export interface Deliverer {
  readonly deliver: (records: ReadonlyArray<SinkRecord>) => Effect.Effect<ReadonlyArray<DeliveryResult>>
}

/** Whether a record handed over again appears again downstream. */
export const Delivery = Schema.Literals(["idempotent", "at-least-once"])
/** @see {@link Delivery} */
export type Delivery = typeof Delivery.Type

/**
 * A sink plugin. `type` is the name users write (`type: nats`); a package `@warden/sink-<type>` exports
 * it as `sink` (or `default`).
 */
export interface Sink<Config = any> {
  readonly type: string
  readonly configSchema: ConfigSchema<Config>
  /** `idempotent`: a repeat of `source`+`reference`+`version` leaves one copy downstream. */
  readonly delivery: Delivery
  /** Most records handed to one `deliver`. */
  readonly batchSize: number
  /** Its tables in the state database, for erasure and retention (none: it keeps nothing there). */
  readonly stores: ReadonlyArray<SinkStore>
  /** Its migrations, run by the daemon's migrator (table {@link migrationsTable}) before `make`. */
  readonly migrations: Migrations
  readonly make: (config: Config, host: SinkHost) => Effect.Effect<Deliverer, SinkError, Scope.Scope>
}

/** Defines a sink, inferring `Config` from its schema; `batchSize` defaults to 256. */
export const make = <S extends ConfigSchema<any>>(options: {
  readonly type: string
  readonly configSchema: S
  readonly delivery: Delivery
  readonly batchSize?: number | undefined
  readonly stores?: ReadonlyArray<SinkStore> | undefined
  readonly migrations?: Migrations | undefined
  readonly make: (config: S["Type"], host: SinkHost) => Effect.Effect<Deliverer, SinkError, Scope.Scope>
}): Sink<S["Type"]> => ({
  type: options.type,
  configSchema: options.configSchema,
  delivery: options.delivery,
  batchSize: options.batchSize ?? 256,
  stores: options.stores ?? [],
  migrations: options.migrations ?? {},
  make: options.make
})

/**
 * Decodes a user's config for a sink. Every problem is reported at once, each naming its field
 * (`subject: Expected string`); excess properties are refused.
 */
export const decodeConfig = <Config>(sink: Sink<Config>, input: unknown): Effect.Effect<Config, SinkError> =>
  Schema.decodeUnknownEffect(sink.configSchema, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Effect.mapError(
      (error) => new SinkError({ sink: sink.type, message: `invalid ${sink.type} sink config: ${error.message}` })
    )
  )

/** Decodes the config and makes the sink, in the caller's scope. */
export const makeDeliverer = <Config>(
  sink: Sink<Config>,
  input: unknown,
  host: SinkHost
): Effect.Effect<Deliverer, SinkError, Scope.Scope> =>
  Effect.flatMap(decodeConfig(sink, input), (config) => sink.make(config, host))

/**
 * The JSON Schema (draft 2020-12) of a sink's config, for `warden config schema` and editors: secret
 * fields (`ConfigField.secret`) with `writeOnly: true`.
 */
export const configJsonSchema = (sink: Sink): Record<string, unknown> => ConfigField.jsonSchema(sink.configSchema)

/** The secret fields of a sink's config, as path patterns (what `config show` and errors redact). */
export const secretFields = (sink: Sink): ReadonlyArray<ConfigField.SecretField> =>
  ConfigField.secretFields(sink.configSchema)

/**
 * The table recording which of a sink type's migrations ran: its own namespace, so a sink's ids never
 * meet the daemon's (`warden_migrations`) or another sink's.
 */
export const migrationsTable = (type: string): string => `warden_sink_${type.replaceAll("-", "_")}_migrations`

/** Runs the pending migrations of a sink on the SQL client in context (none declared: nothing). */
export const migrate = (sink: Sink): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Object.keys(sink.migrations).length === 0
    ? Effect.void
    : Effect.asVoid(
        Migrator.make({})({ loader: Migrator.fromRecord({ ...sink.migrations }), table: migrationsTable(sink.type) })
      )

const isFunction = (u: unknown): u is Function => typeof u === "function"

/** The runtime shape of a sink, used to validate dynamically imported modules. */
export const SinkShape = Schema.Struct({
  type: Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u)),
  configSchema: Schema.declare(Schema.isSchema, { expected: "an effect Schema" }),
  delivery: Delivery,
  batchSize: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100_000 })),
  stores: Schema.Array(SinkStore),
  migrations: Schema.Record(Schema.String.check(Schema.isPattern(/^\d+_.+$/u)), Schema.Any),
  make: Schema.declare(isFunction, { expected: "a function (config, host) => Effect<Deliverer>" })
})

/** Whether an unknown value is a usable sink. */
export const isSink = (u: unknown): u is Sink => Schema.is(SinkShape)(u)
