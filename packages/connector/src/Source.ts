/**
 * A running source: what `Connector.make` returns inside a scope.
 *
 * @since 0.1.0
 */
import type { Effect, Option, Stream } from "effect"
import type { Action, ActionError, ActionResult } from "./Action.ts"
import type { Checkpoint } from "./Checkpoint.ts"
import type { ConnectorError } from "./ConnectorError.ts"
import type { SourceEvent } from "./SourceEvent.ts"

/**
 * A source of events.
 *
 * `events(from)` is a long-lived (usually endless) stream starting after `from` (or from the upstream's
 * current content when `Option.none()`). Error contract, so a long-running daemon never dies because
 * an upstream was down:
 * - transient upstream failures (network, timeouts, 429/5xx, malformed documents) are retried inside the
 *   stream with backoff and reported as `{ kind: "error" }` events; the stream goes on;
 * - the stream fails with a {@link ConnectorError} only when it cannot go on by itself (an invalid
 *   checkpoint, revoked credentials); `retryable` tells the daemon whether restarting later may help;
 * - a defect is a bug.
 *
 * A poll-based source ends a poll that succeeded but found nothing to emit with a `progress` event
 * carrying its checkpoint: the daemon commits it in order, so a quiet source does not look stuck.
 *
 * `act` is present when the connector declares action capabilities.
 *
 * `pollOnce` is present on poll-based sources (RSS, YouTube): one round of `events` (every feed or
 * scope read once), then the stream ends. An upstream failure fails it with the {@link ConnectorError}
 * instead of an `error` event and a retry: `warden source preview` uses it to answer at once.
 *
 * `acknowledge` is for upstreams that want to hear when an item is safe (a message bus's ack: NATS
 * JetStream, a queue). The daemon calls it after every event up to `checkpoint` is recorded (the
 * checkpoint of a batch's last event, right after it is committed), in stream order, once per batch.
 * At-least-once: a crash may skip it, then the upstream delivers again what was not acknowledged and the
 * daemon's dedupe makes the repeat free. It never fails (a failure to reach the upstream is for the
 * upstream to redeliver); the daemon logs a defect and goes on.
 */
export interface Source {
  readonly events: (from: Option.Option<Checkpoint>) => Stream.Stream<SourceEvent, ConnectorError>
  readonly pollOnce?: (from: Option.Option<Checkpoint>) => Stream.Stream<SourceEvent, ConnectorError>
  readonly act?: (action: Action) => Effect.Effect<ActionResult, ActionError>
  readonly acknowledge?: (checkpoint: Checkpoint) => Effect.Effect<void>
}
