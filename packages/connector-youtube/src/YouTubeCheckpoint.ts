/**
 * The checkpoint of a YouTube source (version 2), what the daemon stores:
 *
 * ```json
 * { "v": 2,
 *   "scopes": { "channel:UC…": { "hwm": "2025-01-01T12:00:00Z" }, "video:abc…|heldForReview": { … } },
 *   "held": { "<commentId>": "<when Warden held it>" },
 *   "quota": { "day": "2025-01-01", "used": 412 } }
 * ```
 *
 * `scopes[..].hwm` is the newest top-level `publishedAt` listed per list (a channel or video, and the
 * moderation status): a cursor, one per configured list. `held` the comments Warden held for review,
 * watched for a moderator's approval (bounded by the actions taken in the last 30 days, not by the
 * feed's history); `quota` the units spent today.
 *
 * What was seen (`seen`: comment id -> `updatedAt`, `replyCounts`: thread id -> replies fetched) is
 * kept in memory only ({@link State}): after a restart the comments of the overlap window are emitted
 * again and the daemon, which keeps every item's reference and content hash, drops the unchanged ones.
 * Version 1 checkpoints, which carried `seen` and `replyCounts`, are still read.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as QuotaBudget from "./QuotaBudget.ts"

/** Per list: the high-water mark (an ISO 8601 instant). */
export const ScopeState = Schema.Struct({ hwm: Schema.String })

/** What a running source remembers (the version 1 checkpoint's shape): cursors, and what was seen. */
export const State = Schema.Struct({
  v: Schema.Literal(1),
  scopes: Schema.Record(Schema.String, ScopeState),
  seen: Schema.Record(Schema.String, Schema.String),
  replyCounts: Schema.Record(Schema.String, Schema.Int),
  held: Schema.Record(Schema.String, Schema.String),
  quota: Schema.optionalKey(QuotaBudget.Persisted)
})
/** @see {@link State} */
export type State = typeof State.Type

/** The checkpoint of a source that has seen nothing. */
export const empty: State = { v: 1, scopes: {}, seen: {}, replyCounts: {}, held: {} }

/** The checkpoint as stored, version 2: cursors, held comments and the day's quota; no history. */
export const Checkpoint = Schema.Struct({
  v: Schema.Literal(2),
  scopes: Schema.Record(Schema.String, ScopeState),
  held: Schema.Record(Schema.String, Schema.String),
  quota: Schema.optionalKey(QuotaBudget.Persisted)
})
/** @see {@link Checkpoint} */
export type Checkpoint = typeof Checkpoint.Type

/** The checkpoint of a running source's state: its cursors, held comments and quota, not what it saw. */
export const toCheckpoint = (state: State): Checkpoint => ({
  v: 2,
  scopes: state.scopes,
  held: state.held,
  ...(state.quota === undefined ? {} : { quota: state.quota })
})

const decodeAny = Schema.decodeUnknownEffect(Schema.Union([Checkpoint, State]), { errors: "all" })

/** Decodes a checkpoint given back by the daemon (version 2, or 1) into the state to start from. */
export const decode = (input: unknown): Effect.Effect<State, Schema.SchemaError> =>
  Effect.map(decodeAny(input), (c): State => (c.v === 2 ? { ...c, v: 1, seen: {}, replyCounts: {} } : c))
