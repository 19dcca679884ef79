/**
 * The checkpoint of an RSS source: per feed, the HTTP validators of the last document (`etag`,
 * `lastModified`). Small and constant-size whatever the feed's history: it is what the daemon stores.
 *
 * What was seen (item hash -> content hash, to emit only new and edited items) is the connector's
 * in-memory {@link FeedState}, bounded by `retain`; it is not persisted. After a restart the first
 * changed document is emitted whole once and the daemon, which keeps every item's reference and
 * content hash, drops what it has already analysed (edits are re-analysed). Version 1 checkpoints
 * (which carried the item map) are still read: their items seed the in-memory state.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"

/** The validators of one feed's last document. */
export const FeedCheckpoint = Schema.Struct({
  etag: Schema.optionalKey(Schema.String),
  lastModified: Schema.optionalKey(Schema.String)
})
/** @see {@link FeedCheckpoint} */
export type FeedCheckpoint = typeof FeedCheckpoint.Type

/** The checkpoint, version 2: validators per feed id. */
export const State = Schema.Struct({
  v: Schema.Literal(2),
  feeds: Schema.Record(Schema.String, FeedCheckpoint)
})
/** @see {@link State} */
export type State = typeof State.Type

/** What the connector remembers of one feed while it runs: validators and `items` (item hash -> content hash, oldest first). */
export const FeedState = Schema.Struct({
  ...FeedCheckpoint.fields,
  items: Schema.Record(Schema.String, Schema.String)
})
/** @see {@link FeedState} */
export type FeedState = typeof FeedState.Type

/** The version 1 checkpoint (0.1.x), which held each feed's item map. Read, never written. */
export const StateV1 = Schema.Struct({
  v: Schema.Literal(1),
  feeds: Schema.Record(Schema.String, FeedState)
})

/** The checkpoint of the in-memory states: their validators only. */
export const fromFeeds = (feeds: Readonly<Record<string, FeedState>>): State => {
  const out: Record<string, FeedCheckpoint> = {}
  for (const [id, feed] of Object.entries(feeds)) {
    out[id] = {
      ...(feed.etag === undefined ? {} : { etag: feed.etag }),
      ...(feed.lastModified === undefined ? {} : { lastModified: feed.lastModified })
    }
  }
  return { v: 2, feeds: out }
}

const decodeAny = Schema.decodeUnknownEffect(Schema.Union([State, StateV1]), { errors: "all" })

/**
 * Decodes a checkpoint given back by the daemon into the in-memory states to start from: validators
 * only (version 2), or validators and items (version 1).
 */
export const decode = (input: unknown): Effect.Effect<Record<string, FeedState>, Schema.SchemaError> =>
  Effect.map(decodeAny(input), (state) => {
    const out: Record<string, FeedState> = {}
    for (const [id, feed] of Object.entries(state.feeds)) out[id] = { items: {}, ...feed }
    return out
  })
