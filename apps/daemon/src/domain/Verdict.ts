/**
 * The verdict the daemon keeps for an item, whatever endpoint produced it: one flat record that rules,
 * sinks and the admin API read (engine/Verdict.ts builds it from the API's answers).
 */
import { Schema } from "effect"

/** A verdict on one item (or one segment of it). */
export const Verdict = Schema.Struct({
  type: Schema.optionalKey(Schema.String),
  classifications: Schema.Array(Schema.String),
  severity: Schema.optionalKey(Schema.String),
  recommendedAction: Schema.optionalKey(Schema.String),
  directedAt: Schema.optionalKey(Schema.String),
  language: Schema.optionalKey(Schema.String)
})
/** @see {@link Verdict} */
export type Verdict = typeof Verdict.Type
