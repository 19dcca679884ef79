/**
 * The checkpoint of a YouTube source (version 1):
 *
 * ```json
 * { "v": 1,
 *   "scopes": { "channel:UC…": { "hwm": "2025-01-01T12:00:00Z" }, "video:abc…|heldForReview": { … } },
 *   "seen": { "<commentId>": "<updatedAt>" },
 *   "replyCounts": { "<threadId>": 7 },
 *   "held": { "<commentId>": "<when Warden held it>" },
 *   "quota": { "day": "2025-01-01", "used": 412 } }
 * ```
 *
 * `scopes[..].hwm` is the newest top-level `publishedAt` listed per list (a channel or video, and the
 * moderation status); `seen` maps each comment emitted to its `updatedAt` (edits change it), pruned by
 * time below the oldest high-water mark; `replyCounts` the `totalReplyCount` whose replies were all
 * fetched; `held` the comments Warden held for review, watched for a moderator's approval.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as QuotaBudget from "./QuotaBudget.ts"

/** Per list: the high-water mark (an ISO 8601 instant). */
export const ScopeState = Schema.Struct({ hwm: Schema.String })

/** The whole checkpoint, versioned. */
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

/** Decodes a checkpoint given back by the daemon. */
export const decode = Schema.decodeUnknownEffect(State, { errors: "all" })
