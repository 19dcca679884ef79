/**
 * The NATS JetStream connector: reads a stream through a durable pull consumer and emits one `upsert`
 * per message (`NatsMessage`), acknowledging each message only once the daemon has recorded it.
 *
 * Delivery: at-least-once across restarts. A message is acked (`AckExplicit`, one ack each) when the
 * daemon calls `acknowledge` with a checkpoint at or after it, that is once every event up to it is
 * recorded. What was delivered and not acknowledged when the source stops is nak-ed (delivered again
 * within 2.5 s); after a crash the server delivers it again once `ackWait` has passed. The daemon drops the
 * repeats by reference + content hash (`duplicates: "possible"`).
 *
 * A malformed message (not a JSON object, no reference or content, a field of the wrong type, a
 * reference over 256 characters with its prefix) is emitted as it came, so the daemon dead-letters it
 * naming the field, and terminated (`term`): JetStream never delivers it again.
 *
 * Errors: the client reconnects by itself (to any of `servers`); a failed connect, consumer creation or
 * pull is an `error` event and a retry with `retry`'s backoff, and the stream goes on. The stream fails
 * only on refused credentials or permissions (`Unauthorized`), a consumer config the server refuses
 * (`InvalidConfig`), an unreadable checkpoint, or a connection the client gave up on.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import {
  AckPolicy,
  type Consumer,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JsMsg,
  jetstream,
  jetstreamManager
} from "@nats-io/jetstream"
import {
  AuthorizationError,
  type ConnectionOptions,
  connect,
  type NatsConnection,
  nanos,
  PermissionViolationError,
  UserAuthenticationExpiredError
} from "@nats-io/transport-node"
import { Backoff, Checkpoint, Connector, ConnectorError, type Source, type SourceEvent } from "@warden/connector"
import { type Cause, Context, Duration, Effect, Layer, type Option, Queue, type Scope, Stream } from "effect"
import type * as EffectConfig from "effect/Config"
import * as NatsCheckpoint from "./NatsCheckpoint.ts"
import * as NatsConfig from "./NatsConfig.ts"
import * as Connection from "./NatsConnection.ts"
import * as NatsMessage from "./NatsMessage.ts"
import * as PendingAcks from "./PendingAcks.ts"

const TYPE = "nats"

/** The durable consumer's name when the config gives none: `warden-` and 12 hex digits of the subject's SHA-256. */
export const defaultDurable = (subject: string | undefined): string =>
  `warden-${createHash("sha256")
    .update(subject ?? "")
    .digest("hex")
    .slice(0, 12)}`

/**
 * How long one pull request waits for messages (the server sends heartbeats every half of it): an idle
 * source sends one small request per 2 s, and a lost connection shows within a few seconds.
 */
const pullExpiry = 2_000

/**
 * The delay of the naks at a stop, past the last pull request's expiry. The server (2.9) still hands
 * a nak-ed message to a pull request whose connection stopped reading, and that message then comes
 * back only after `ackWait`; with the delay, the next start gets them all 2.5 s later.
 */
const releaseDelay = pullExpiry + 500

const failure = (reason: ConnectorError.ConnectorErrorReason, retryable: boolean, message: string) =>
  new ConnectorError.ConnectorError({ source: TYPE, reason, retryable, message })

/**
 * A NATS client error as a ConnectorError, `what` saying what was being done. Refused credentials or
 * permissions and a consumer config the server refuses (400) are not retried; the rest is.
 */
export const toConnectorError = (what: string, error: unknown): ConnectorError.ConnectorError => {
  const message = `${what}: ${error instanceof Error ? error.message : String(error)}`
  if (error instanceof AuthorizationError || error instanceof UserAuthenticationExpiredError)
    return failure("Unauthorized", false, message)
  if (error instanceof PermissionViolationError) return failure("Unauthorized", false, message)
  if (error instanceof JetStreamApiError) {
    if (error.code === JetStreamApiCodes.StreamNotFound || error.code === JetStreamApiCodes.ConsumerNotFound)
      return failure("Unavailable", true, message)
    if (error.status === 400) return failure("InvalidConfig", false, message)
  }
  return failure("Unavailable", true, message)
}

const attempt = <A>(what: string, f: () => Promise<A>): Effect.Effect<A, ConnectorError.ConnectorError> =>
  Effect.tryPromise({ try: f, catch: (error) => toConnectorError(what, error) })

/**
 * Stops a connection (its pull already ended): naks what the daemon has not recorded (delivered again to
 * the next start after {@link releaseDelay} rather than `ackWait`), then drains, or closes if draining
 * takes longer than 5 s (a server that is down).
 */
const release = (nc: NatsConnection, pending: PendingAcks.PendingAcks) =>
  Effect.gen(function* () {
    pending.releaseAll()
    yield* Effect.promise(() => nc.drain().catch(() => undefined)).pipe(Effect.timeoutOption("5 seconds"))
    if (!nc.isClosed()) yield* Effect.promise(() => nc.close().catch(() => undefined))
  })

/** The connector's source over a decoded config; it connects in `events`, in the stream's scope. */
export const make = (
  config: NatsConfig.Config
): Effect.Effect<Source.Source, ConnectorError.ConnectorError, Scope.Scope> =>
  Effect.sync(() => {
    const durable = config.durable ?? defaultDurable(config.subject)
    const where = `stream ${config.stream}, consumer ${durable}`
    /** The delivered, unacknowledged messages of the running `events` stream (its connection's). */
    let current: PendingAcks.PendingAcks | undefined

    const consumerConfig = {
      durable_name: durable,
      description: "Warden source (@warden/connector-nats): acknowledged once recorded",
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(Duration.toMillis(config.ackWait)),
      max_ack_pending: config.maxAckPending,
      ...(config.subject === undefined ? {} : { filter_subject: config.subject })
    }

    const run = (
      from: Option.Option<Checkpoint.Checkpoint>,
      queue: Queue.Queue<SourceEvent.SourceEvent, ConnectorError.ConnectorError | Cause.Done>
    ) =>
      // Its own scope, closed as its fiber is interrupted: the pull in progress ends first, then the
      // connection. (In the stream's scope the connection was released first, under a running pull.)
      Effect.scoped(
        Effect.gen(function* () {
          // The durable consumer is where a start resumes: a checkpoint only has to be ours.
          yield* Checkpoint.decode(NatsCheckpoint.Checkpoint, TYPE)(from)

          /** Consecutive failures: the attempt of the next error event. */
          let failures = 0
          /** Reports a failure as an error event (and a warning); answers the wait before the next try. */
          const report = (error: ConnectorError.ConnectorError) =>
            Effect.gen(function* () {
              failures++
              const wait = Backoff.delayMillis(config.retry, failures)
              yield* Effect.logWarning(`nats: ${error.message}; retrying in ${wait} ms`).pipe(
                Effect.annotateLogs({ stream: config.stream, consumer: durable, attempt: failures })
              )
              yield* Queue.offer(queue, {
                kind: "error",
                source: `${TYPE}:${config.stream}`,
                reason: error.reason,
                message: error.message,
                attempt: failures,
                retryInMillis: wait
              })
              return wait
            })
          /** Reports a retryable failure and waits its backoff; fails with the others. */
          const retryAfter = (error: ConnectorError.ConnectorError) =>
            error.retryable
              ? Effect.flatMap(report(error), (wait) => Effect.sleep(Duration.millis(wait)))
              : Effect.fail(error)
          /** Runs `effect` until it succeeds, each retryable failure an error event and a backoff. */
          const persist = <A>(effect: Effect.Effect<A, ConnectorError.ConnectorError>) =>
            Effect.gen(function* () {
              while (true) {
                const result = yield* Effect.result(effect)
                if (result._tag === "Success") return result.success
                yield* retryAfter(result.failure)
              }
            })

          const options: ConnectionOptions = {
            ...(yield* Connection.options(config).pipe(
              Effect.mapError((message) => failure("InvalidConfig", false, message))
            )),
            // The client's reconnection waits as the SDK's backoff says, by the attempts reported below.
            reconnectDelayHandler: () => Backoff.delayMillis(config.retry, Math.max(1, failures))
          }
          const pending = PendingAcks.make()
          const nc = yield* Effect.acquireRelease(
            persist(attempt(`connecting to ${config.servers.join(", ")}`, () => connect(options))),
            (nc) =>
              Effect.suspend(() => {
                if (current === pending) current = undefined
                return release(nc, pending)
              })
          )
          current = pending
          failures = 0
          const js = jetstream(nc)

          // While the connection is down a pull waits without an error (the client pauses its heartbeat
          // checks until it is back): each disconnect and reconnection attempt is an error event here.
          yield* Effect.forkScoped(
            Stream.fromAsyncIterable(nc.status(), () => undefined).pipe(
              Stream.runForEach((status) => {
                if (status.type === "reconnect")
                  return Effect.sync(() => {
                    failures = 0
                  })
                if (status.type !== "disconnect" && status.type !== "reconnecting") return Effect.void
                const what = status.type === "disconnect" ? `disconnected from ${status.server}` : "reconnecting"
                return report(failure("Unavailable", true, `${what} (${where})`))
              }),
              Effect.ignore
            )
          )

          const ensureConsumer = Effect.fn("NatsConnector.ensureConsumer")(() =>
            attempt(where, async () => {
              const manager = await jetstreamManager(nc)
              // Creates the consumer, or updates it to the config (ack_wait, max_ack_pending, subject).
              await manager.consumers.add(config.stream, consumerConfig)
              return js.consumers.get(config.stream, durable)
            })
          )

          /** Hands one message over: held until acknowledged, or dead-lettered by the daemon and terminated. */
          const deliver = (message: JsMsg) =>
            Effect.gen(function* () {
              const decoded = NatsMessage.decode(config.stream, message.seq, message.string())
              if (decoded._tag === "Malformed") {
                yield* Queue.offer(queue, decoded.event)
                try {
                  // Without a reason: nats-server 2.9 does not take "+TERM <reason>" (the message stays pending).
                  message.term()
                } catch {
                  // the connection is gone: the message comes again after ackWait and is terminated then
                }
                return
              }
              // Delivered again while the daemon still works on it (ackWait passed): its ack comes.
              const held = pending.hold({
                seq: message.seq,
                ack: () => message.ack(),
                nak: () => message.nak(releaseDelay)
              })
              if (held) yield* Queue.offer(queue, decoded.event)
            })

          /** One pull request: its messages as they come, until it is filled or expires. */
          const pull = Effect.fn("NatsConnector.pull")((consumer: Consumer) =>
            Effect.acquireUseRelease(
              attempt(where, () => consumer.fetch({ max_messages: config.batch, expires: pullExpiry })),
              (messages) =>
                Effect.gen(function* () {
                  const iterator = messages[Symbol.asyncIterator]()
                  while (true) {
                    const next = yield* attempt(where, () => iterator.next())
                    if (next.done === true) return
                    failures = 0
                    yield* deliver(next.value)
                  }
                }),
              (messages) => Effect.sync(() => messages.stop())
            )
          )

          let consumer: Consumer | undefined
          while (true) {
            const result = yield* Effect.result(
              Effect.gen(function* () {
                consumer ??= yield* ensureConsumer()
                yield* pull(consumer)
              })
            )
            if (nc.isClosed()) {
              // The client gave up (it reconnects for ever otherwise): refused credentials, or a restart helps.
              const reason = yield* Effect.promise(() => nc.closed())
              return yield* toConnectorError(`the NATS connection closed (${where})`, reason ?? "closed")
            }
            if (result._tag === "Failure") {
              // Ask for the consumer again after any failure: it may have been deleted (it is created again).
              consumer = undefined
              yield* retryAfter(result.failure)
            }
          }
        })
      )

    return {
      events: (from) =>
        Stream.callback<SourceEvent.SourceEvent, ConnectorError.ConnectorError>((queue) => run(from, queue), {
          bufferSize: config.batch
        }),
      acknowledge: (checkpoint) =>
        Effect.sync(() => {
          const position = NatsCheckpoint.read(checkpoint)
          if (position !== undefined) current?.acknowledgeThrough(position.seq)
        })
    } satisfies Source.Source
  })

/** The connector definition, found by the registry as `connector` (type `nats`). */
export const connector: Connector.Connector<NatsConfig.Config> = Connector.make({
  type: TYPE,
  configSchema: NatsConfig.Config,
  capabilities: { actions: [], duplicates: "possible", contentTypes: ["text", "image", "username"] },
  make
})

/** A running NATS source as a service, for programs that use the connector directly (not via the daemon). */
export class NatsSource extends Context.Service<NatsSource, Source.Source>()("@warden/connector-nats/NatsSource") {}

/** Provides {@link NatsSource} from a config as a user writes it (durations as strings, defaults optional). */
export const layer = (options: NatsConfig.ConfigInput): Layer.Layer<NatsSource, ConnectorError.ConnectorError> =>
  Layer.effect(NatsSource, Effect.flatMap(Connector.decodeConfig(connector, options), make))

/**
 * Provides {@link NatsSource} from an Effect `Config`, e.g. `Config.schema(NatsConfig.Config, "nats")`
 * read from the environment or a ConfigProvider.
 */
export const layerConfig = (
  config: EffectConfig.Config<NatsConfig.Config>
): Layer.Layer<NatsSource, ConnectorError.ConnectorError | EffectConfig.ConfigError> =>
  Layer.effect(NatsSource, Effect.flatMap(config, make))
