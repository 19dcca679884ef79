/**
 * The checkpoint of a Discord source:
 * - `channels`: per channel or thread id, the high-water message id (snowflake) already emitted;
 * - `since`: the highest message id seen in any channel (a thread or channel whose id is above it was
 *   created while the source was down and is read from its start);
 * - `session`: the gateway session to RESUME (`id`, `seq` of the last dispatch handled, `resumeUrl`);
 * - `acted`: references Warden acted on (reference -> action kind), for moderator reversals;
 * - `modLog`: mod-log post id -> the reference it is about;
 * - `reported`: references already reported by a member (a report is emitted at most once per item).
 * The three memories are bounded to the most recent {@link memoryLimit} entries.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** How many entries of `acted`, `modLog` and `reported` are kept. */
export const memoryLimit = 1000

/** The gateway session, for RESUME across restarts. */
export const Session = Schema.Struct({
  id: Schema.String,
  seq: Schema.Number,
  resumeUrl: Schema.String
})
/** @see {@link Session} */
export type Session = typeof Session.Type

/** The whole checkpoint, versioned. */
export const State = Schema.Struct({
  v: Schema.Literal(1),
  channels: Schema.Record(Schema.String, Schema.String),
  since: Schema.String,
  session: Schema.optionalKey(Session),
  acted: Schema.Record(Schema.String, Schema.String),
  modLog: Schema.Record(Schema.String, Schema.String),
  reported: Schema.Array(Schema.String)
})
/** @see {@link State} */
export type State = typeof State.Type

/** The checkpoint of a source that has seen nothing. */
export const empty: State = { v: 1, channels: {}, since: "0", acted: {}, modLog: {}, reported: [] }

/** Decodes a checkpoint given back by the daemon. */
export const decode = Schema.decodeUnknownEffect(State, { errors: "all" })

/** Compares two snowflakes (decimal strings) numerically. */
export const compare = (a: string, b: string): number => {
  const x = BigInt(a)
  const y = BigInt(b)
  return x < y ? -1 : x > y ? 1 : 0
}

/** The larger of two snowflakes. */
export const max = (a: string, b: string): string => (compare(a, b) >= 0 ? a : b)

/** Keeps the last `limit` keys of a record (insertion order). */
export const bound = (record: Record<string, string>, limit = memoryLimit): Record<string, string> => {
  const keys = Object.keys(record)
  if (keys.length <= limit) return record
  return Object.fromEntries(keys.slice(keys.length - limit).map((k) => [k, record[k]!]))
}
