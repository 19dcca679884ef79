/**
 * The config of a NATS JetStream source, decoded from the user's YAML:
 *
 * ```yaml
 * sources:
 *   - id: comments
 *     type: nats
 *     config:
 *       servers: [nats://127.0.0.1:4222]
 *       stream: COMMENTS
 *       subject: comments.>
 *       token: ${env:NATS_TOKEN}
 * ```
 *
 * @since 0.1.0
 */
import { Backoff, ConfigDuration } from "@warden/connector"
import { Effect, Schema } from "effect"
import * as NatsConnection from "./NatsConnection.ts"

/** `nats://host:port` (no credentials in the URL). */
export const ServerUrl = NatsConnection.ServerUrl

/** A stream or consumer name as NATS allows it: no whitespace, `.`, `*`, `>`, `/` or `\`. */
const NatsName = (what: string) =>
  Schema.String.check(Schema.isPattern(/^[^\s.*>/\\]{1,255}$/u)).annotate({
    description: `The ${what} name (no whitespace, '.', '*', '>', '/' or '\\')`
  })

const int = (min: number, max: number, value: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max })).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(value))
  )

/** The whole NATS source config: `servers` and `stream` are required, everything else has a default. */
export const Config = Schema.Struct({
  servers: NatsConnection.fields.servers,
  stream: NatsName("JetStream stream").annotate({
    description: "The JetStream stream to read; it must exist (the connector creates only its consumer)."
  }),
  subject: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^\S+$/u)).annotate({
      description: "Only the stream's messages on this subject (wildcards * and > allowed); default: all of them."
    })
  ),
  durable: Schema.optionalKey(
    NatsName("durable consumer").annotate({
      description:
        "The durable consumer's name (default: warden- and 12 hex digits of the subject's SHA-256). Two sources with the same durable share its messages."
    })
  ),
  token: NatsConnection.fields.token,
  user: NatsConnection.fields.user,
  password: NatsConnection.fields.password,
  credsFile: NatsConnection.fields.credsFile,
  batch: int(1, 1000, 100).annotate({
    description: "Messages asked for per pull request (default 100); at most maxAckPending."
  }),
  maxAckPending: int(1, 100_000, 1000).annotate({
    description:
      "The consumer's max_ack_pending: messages delivered and not yet acknowledged (recorded) at once, which bounds the connector's memory (default 1000)."
  }),
  ackWait: ConfigDuration.withDefault("30 seconds", "1 second").annotate({
    description:
      "The consumer's ack_wait: a message not acknowledged this long after delivery is delivered again (default 30 seconds). Above the time a batch takes to be recorded."
  }),
  retry: Backoff.Settings({ initial: "1 second", max: "1 minute" })
})
  .check(NatsConnection.oneAuthentication)
  .check(
    Schema.makeFilter<{ readonly batch: number; readonly maxAckPending: number }>(
      (c) =>
        c.batch <= c.maxAckPending || { path: ["batch"], issue: `must not exceed maxAckPending (${c.maxAckPending})` }
    )
  )
/** The decoded config. */
export type Config = typeof Config.Type
/** The config as a user writes it (durations as strings, defaults optional). */
export type ConfigInput = typeof Config.Encoded
