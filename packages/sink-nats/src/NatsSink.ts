/**
 * The NATS JetStream sink: publishes each verdict record (its JSON text) to a subject, with the record's
 * delivery id `source/reference/version` as `Nats-Msg-Id`, and counts it delivered once the stream has
 * acknowledged it. A record published again (after a crash, a timeout whose publish did land) is dropped
 * by the stream as a duplicate within its `duplicate_window` (default 2 minutes; give the stream one as
 * long as the sink's retry window) and answered delivered: every record is in the stream once.
 *
 * ```yaml
 * sinks:
 *   - name: bus
 *     type: nats
 *     servers: [nats://127.0.0.1:4222]
 *     subject: warden.verdicts.{source}
 *     stream: VERDICTS
 *     token: ${env:NATS_TOKEN}
 * ```
 *
 * Failures: no answer, a timeout, a connection lost or refused, a server whose JetStream does not answer
 * (stopping, starting, not enabled) are retryable (the client reconnects by itself); a subject JetStream
 * says no stream takes, a stream other than `stream` storing it, a permission or authorization refused, a
 * message the stream refuses (too large) are permanent.
 *
 * @since 0.1.0
 */
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from "@nats-io/jetstream"
import {
  AuthorizationError,
  connect,
  headers,
  type NatsConnection,
  PermissionViolationError,
  UserAuthenticationExpiredError
} from "@nats-io/transport-node"
import { ConfigDuration } from "@warden/connector"
import { NatsConnection as Connection } from "@warden/connector-nats"
import { DeliveryResult, Sink, SinkError, SinkRecord } from "@warden/sink"
import { Duration, Effect, Schema } from "effect"

/** The `{source}` placeholder of `subject`. */
const PLACEHOLDER = "{source}"

/** A subject's tokens: no whitespace, wildcard or empty token (the placeholder counts as one token's text). */
const isSubject = (subject: string) => /^[^\s.*>{}]+(?:\.[^\s.*>{}]+)*$/u.test(subject.replaceAll(PLACEHOLDER, "x"))

/** The sink's config, as the entry of `sinks:` (besides `name` and `type`). */
export const Config = Schema.Struct({
  ...Connection.fields,
  subject: Schema.String.check(
    Schema.makeFilter(
      (s: string) => isSubject(s) || "a subject such as warden.verdicts or warden.{source} (no wildcards)"
    )
  ).annotate({
    description:
      "The subject each record is published to; {source} is replaced by the record's source id (characters other than letters, digits, - and _ as _)."
  }),
  stream: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[^\s.*>/\\]{1,255}$/u)).annotate({
      description:
        "The JetStream stream expected to store the records: a publish stored by another stream is refused (permanent)."
    })
  ),
  timeout: ConfigDuration.withDefault("5 seconds", "100 millis").annotate({
    description: "How long to wait for the stream's acknowledgement of a record (default 5 seconds)."
  })
}).check(Connection.oneAuthentication)
/** The decoded config. */
export type Config = typeof Config.Type

/** The subject of a record: `{source}` replaced by its source id, made a safe token. */
export const subjectOf = (subject: string, source: string): string =>
  subject.replaceAll(PLACEHOLDER, source.replace(/[^A-Za-z0-9_-]/gu, "_"))

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Refused credentials or permissions: retrying with the same config cannot help. */
const refused = (error: unknown) =>
  error instanceof AuthorizationError ||
  error instanceof UserAuthenticationExpiredError ||
  error instanceof PermissionViolationError

/**
 * A failed publish as a result. No responders is a subject no stream takes (permanent) only when the
 * JetStream API answers so; a server that still lists a stream for it, or whose JetStream does not answer
 * at all, is retryable. The second is a nats-server shutting down: it stops JetStream (the streams'
 * subscriptions gone, a publish answered "no responders") before it closes the connections, and the
 * lookup then times out or finds no JetStream. Taken as "no stream takes this subject", it dead-lettered
 * the whole batch in flight at a restart (the daemon's nats-crash test: 20 of 2,000 verdict records).
 * An API error is permanent but for a 5xx.
 */
const failed = (nc: NatsConnection, subject: string, error: unknown): Effect.Effect<DeliveryResult.DeliveryResult> => {
  const what = `publish to ${subject}: ${messageOf(error)}`
  if (refused(error)) return Effect.succeed(DeliveryResult.permanent(what))
  if (error instanceof JetStreamApiError)
    return Effect.succeed(error.status >= 500 ? DeliveryResult.retryable(what) : DeliveryResult.permanent(what))
  // No responders: the client throws `JetStreamNotEnabled` (a class its entry does not export).
  if (!(error instanceof Error && error.name === "JetStreamNotEnabled"))
    return Effect.succeed(DeliveryResult.retryable(what))
  return Effect.tryPromise(async () => (await jetstreamManager(nc)).streams.find(subject)).pipe(
    Effect.match({
      onSuccess: (stream) => DeliveryResult.retryable(`publish to ${subject}: stream ${stream} did not answer`),
      onFailure: ({ cause }) =>
        cause instanceof JetStreamApiError && cause.code === JetStreamApiCodes.StreamNotFound
          ? DeliveryResult.permanent(`publish to ${subject}: no stream takes this subject (${messageOf(cause)})`)
          : DeliveryResult.retryable(
              `publish to ${subject}: no stream answered, and JetStream did not say which takes it (${messageOf(cause)})`
            )
    })
  )
}

/** The sink over a decoded config: connects at the first delivery, and again after a failed connect. */
export const make = (config: Config, host: Sink.SinkHost) =>
  Effect.gen(function* () {
    const options = yield* Connection.options(config).pipe(
      Effect.mapError((message) => new SinkError({ sink: "nats", message, setting: host.setting("credsFile") }))
    )
    const timeout = Duration.toMillis(config.timeout)
    /** The connection, once connected (a failed connect is tried again at the next delivery). */
    let connection: Promise<NatsConnection> | undefined
    const connected = Effect.tryPromise(() => {
      if (connection === undefined) {
        const attempt = connect({ ...options, timeout })
        connection = attempt
        attempt.catch(() => {
          if (connection === attempt) connection = undefined
        })
      }
      return connection
    })
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        const nc = await connection?.catch(() => undefined)
        if (nc === undefined || nc.isClosed()) return
        // Drain sends what is buffered; a server that is down gets 5 s, then the connection is closed.
        let timer: NodeJS.Timeout | undefined
        await Promise.race([
          nc.drain().catch(() => undefined),
          new Promise((resolve) => {
            timer = setTimeout(resolve, 5_000)
          })
        ])
        clearTimeout(timer)
        if (!nc.isClosed()) await nc.close().catch(() => undefined)
      })
    )
    const publish = (nc: NatsConnection, record: SinkRecord.SinkRecord) => {
      const subject = subjectOf(config.subject, record.source)
      const h = headers()
      h.set("Content-Type", "application/json")
      h.set("Warden-Source", record.source)
      h.set("Warden-Reference", record.reference)
      h.set("Warden-Version", String(record.version))
      return Effect.tryPromise(() =>
        jetstream(nc).publish(subject, record.json, {
          msgID: SinkRecord.deliveryId(record),
          timeout,
          headers: h,
          ...(config.stream === undefined ? {} : { expect: { streamName: config.stream } })
        })
      ).pipe(
        Effect.as(DeliveryResult.delivered),
        Effect.catch((error) => failed(nc, subject, error.cause))
      )
    }
    const deliverer: Sink.Deliverer = {
      deliver: (records) =>
        connected.pipe(
          Effect.matchEffect({
            onFailure: (error) => {
              const what = `connect to ${config.servers.join(", ")}: ${messageOf(error.cause)}`
              return Effect.succeed(
                DeliveryResult.all(
                  records.length,
                  refused(error.cause) ? DeliveryResult.permanent(what) : DeliveryResult.retryable(what)
                )
              )
            },
            // Every record in flight at once: the acks come back as the stream stores them.
            onSuccess: (nc) => Effect.forEach(records, (record) => publish(nc, record), { concurrency: "unbounded" })
          })
        )
    }
    return deliverer
  })

/** The sink, under the name the daemon's registry looks for (`type: nats` → `@warden/sink-nats`). */
export const sink = Sink.make({ type: "nats", configSchema: Config, delivery: "idempotent", batchSize: 256, make })
