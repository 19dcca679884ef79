/**
 * Building blocks of the config file's schema: durations, secrets, `HOST:PORT`, defaults. They live in
 * the domain (the lowest floor) because both the config and the sinks' own option schemas use them.
 */
import { ConfigDuration } from "@warden/connector"
import { format as formatHostPort } from "../HostPort.ts"
import { Effect, Schema, SchemaTransformation } from "effect"

/** A duration as operators write it (`500ms`, `10s`, `5m`, `1h`, `10 seconds`), decoded to a `Duration`. */
export const DurationString = ConfigDuration.DurationString

/** A relation between two duration keys of a struct: `low` must not exceed `high` (reported at `low`). */
export const durationsOrdered = ConfigDuration.ordered

/** A duration of at least `minimum` (`DurationString` with a bound). */
export const durationAtLeast = ConfigDuration.atLeast

/** A duration key with a default (shown in the JSON Schema, whose side is the string) and a lower bound. */
export const durationWithDefault = ConfigDuration.withDefault

/** A secret value, decoded to `Redacted` (written as `${env:NAME}` / `${file:path}`, resolved before decoding). */
export const Secret = Schema.RedactedFromValue(Schema.String.check(Schema.isNonEmpty({ message: "must not be empty" })))

/** An http(s) URL. */
export const HttpUrl = Schema.String.check(
  Schema.makeFilter<string>(
    (s) => (URL.canParse(s) && /^https?:$/u.test(new URL(s).protocol)) || "must be an http:// or https:// URL",
    { toJsonSchema: () => ({ format: "uri", pattern: "^https?://" }) }
  )
)

export type { HostPort } from "../HostPort.ts"

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/u

const hostPort = (annotations: Schema.Annotations.Annotations) =>
  Schema.String.annotate(annotations)
    .check(
      Schema.makeFilter<string>(
        (s) => {
          const m = HOST_PORT.exec(s)
          return (m !== null && Number(m[2]) <= 65535) || "must be HOST:PORT, e.g. 127.0.0.1:8787"
        },
        { toJsonSchema: () => ({ pattern: "^(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+):\\d{1,5}$" }) }
      )
    )
    .pipe(
      Schema.decodeTo(
        Schema.Struct({ host: Schema.String, port: Schema.Int }),
        SchemaTransformation.transform({
          decode: (s: string) => {
            const m = HOST_PORT.exec(s)!
            return { host: m[1]!.replace(/^\[|\]$/gu, ""), port: Number(m[2]) }
          },
          encode: formatHostPort
        })
      )
    )

/** `HOST:PORT` (`127.0.0.1:8787`, `[::1]:8787`), decoded to `{ host, port }`. */
export const HostPortString = hostPort({ description: "HOST:PORT" })

/** A `HOST:PORT` key with a default (shown in the JSON Schema). */
export const hostPortWithDefault = (value: string) =>
  hostPort({ description: "HOST:PORT", default: value }).pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/**
 * An optional key decoded to `value` when left out, with the default annotated (the config's JSON
 * Schema and reference docs show it).
 */
export const withDefault =
  <S extends Schema.Top>(value: S["Encoded"]) =>
  (self: S) =>
    // `annotate` gives `S["Rebuild"]`, the same schema type for every concrete `S`, which TypeScript
    // cannot relate to a type parameter `S`: hence the one upcast-and-back.
    (self.annotate({ default: value }) as unknown as S).pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/** An integer within bounds. */
export const IntBetween = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

/** A positive finite number. */
export const PositiveNumber = Schema.Finite.check(Schema.isGreaterThan(0))
