/**
 * The checkpoint of an RSS source: per feed, the HTTP validators of the last document and the items
 * already emitted with their content hash (so edits are detected across restarts). Bounded: per feed,
 * the items the feed still returns plus the most recent others up to `retain`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** What is remembered of one feed. `items`: item hash -> content hash, oldest first. */
export const FeedState = Schema.Struct({
  etag: Schema.optionalKey(Schema.String),
  lastModified: Schema.optionalKey(Schema.String),
  items: Schema.Record(Schema.String, Schema.String)
})
/** @see {@link FeedState} */
export type FeedState = typeof FeedState.Type

/** The whole checkpoint, versioned. */
export const State = Schema.Struct({
  v: Schema.Literal(1),
  feeds: Schema.Record(Schema.String, FeedState)
})
/** @see {@link State} */
export type State = typeof State.Type

/** The checkpoint of a source that has seen nothing. */
export const empty: State = { v: 1, feeds: {} }

/** Decodes a checkpoint given back by the daemon. */
export const decode = Schema.decodeUnknownEffect(State, { errors: "all" })
