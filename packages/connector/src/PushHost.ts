/**
 * The daemon's side of a push source (an HTTP listener, a webhook receiver): what a connector that is
 * handed items, rather than reading them from an upstream, needs of the daemon's state.
 *
 * A poll or gateway connector's upstream keeps what was not yet recorded: after a crash, the daemon
 * reads it again from its checkpoint. A push connector has no such upstream: once it answered its
 * client "accepted", the items must survive a `kill -9` on the daemon's side. A connector cannot write
 * the state itself (it never sees the database), so the daemon hands a push connector this host in the
 * context of `Connector.make` (`yield* Effect.serviceOption(PushHost)`):
 * - {@link PushHostShape.receive} commits items to the state's intake and returns once committed: the
 *   connector answers its client after that, never before;
 * - the source's `events` and `acknowledge` are the host's ({@link PushHostShape.events},
 *   {@link PushHostShape.acknowledge}): the intake read as the source's stream, the rows deleted once
 *   the daemon committed the checkpoint past them (after their verdicts are recorded);
 * - {@link PushHostShape.check} records one item as `receive` does, then waits for its decision.
 *
 * Every source gets a host; a connector that does not use it ignores it.
 *
 * @since 0.3.0
 */
import { Context, type Effect, type Option, Schema, type Stream } from "effect"
import type { Checkpoint } from "./Checkpoint.ts"
import type { ConnectorError } from "./ConnectorError.ts"
import { type SourceEvent, Upsert } from "./SourceEvent.ts"

const { kind: _kind, checkpoint: _checkpoint, ...itemFields } = Upsert.fields

/** One pushed item: an upsert without its kind and checkpoint (the host gives it its place in the intake). */
export const PushItem = Schema.Struct(itemFields)
/** @see {@link PushItem} */
export type PushItem = typeof PushItem.Type

/** What a check answers: whether the item may be published, and why. */
export const Decision = Schema.Literals(["allow", "review", "reject"])
/** @see {@link Decision} */
export type Decision = typeof Decision.Type

/**
 * The decision on a checked item. `decidedBy: "verdict"`: from its recorded verdict and the source's
 * rules (`version`, `verdict`, `rule` and `actions` are the record's); `"failureMode"`: the API did not
 * answer within the deadline, and the source's failure mode decided (the item is still analysed and its
 * verdict recorded later).
 */
export const CheckResult = Schema.Struct({
  decision: Decision,
  reference: Schema.String,
  version: Schema.NullOr(Schema.Int),
  verdict: Schema.NullOr(Schema.Unknown),
  rule: Schema.NullOr(Schema.String),
  actions: Schema.Array(Schema.String),
  decidedBy: Schema.Literals(["verdict", "failureMode"])
})
/** @see {@link CheckResult} */
export type CheckResult = typeof CheckResult.Type

/** The state could not record the items (the database is down or full): nothing was accepted. */
export class PushHostError extends Schema.TaggedError<PushHostError>()("PushHostError", {
  message: Schema.String
}) {}

/** See the module documentation. */
export interface PushHostShape {
  /** The source's id in the daemon's config. */
  readonly source: string
  /** Commits the items to the intake, in order; succeeds once they are durable. */
  readonly receive: (items: ReadonlyArray<PushItem>) => Effect.Effect<void, PushHostError>
  /**
   * Records the item as {@link receive} does (unless the same content of that reference is recorded
   * already: then its decision is answered without a second analysis), then waits up to
   * `deadlineMillis` for its decision.
   */
  readonly check: (item: PushItem, deadlineMillis: number) => Effect.Effect<CheckResult, PushHostError>
  /** The intake as the source's stream: every item received and not yet acknowledged, in order. */
  readonly events: (from: Option.Option<Checkpoint>) => Stream.Stream<SourceEvent, ConnectorError>
  /** Forgets the intake up to `checkpoint` (the daemon recorded every item up to it). */
  readonly acknowledge: (checkpoint: Checkpoint) => Effect.Effect<void>
}

/** The host, in the context of a push connector's `make`. */
export class PushHost extends Context.Service<PushHost, PushHostShape>()("@warden/connector/PushHost") {}
