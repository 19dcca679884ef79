/**
 * A platform action (hide, delete, hold...) decided for an item version by a rule or the failure
 * mode, and the same action as stored, with its attempts.
 */
import { Schema } from "effect"

/** A platform action decided for an item version. */
export const ActionRecord = Schema.Struct({
  seq: Schema.Number,
  rule: Schema.String,
  kind: Schema.String,
  params: Schema.Unknown,
  reason: Schema.UndefinedOr(Schema.String),
  /** `pending` to run, `would-do` in a dry run. */
  status: Schema.Literals(["pending", "would-do"])
})
/** @see {@link ActionRecord} */
export type ActionRecord = typeof ActionRecord.Type

/** A stored action, as the executor and the admin API see it. */
export const ActionRow = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Schema.Int,
  seq: Schema.Int,
  rule: Schema.String,
  kind: Schema.String,
  params: Schema.Unknown,
  reason: Schema.NullOr(Schema.String),
  /** `pending`, `done`, `failed` or `would-do`. */
  status: Schema.String,
  attempts: Schema.Number,
  lastError: Schema.NullOr(Schema.String)
})
/** @see {@link ActionRow} */
export type ActionRow = typeof ActionRow.Type
