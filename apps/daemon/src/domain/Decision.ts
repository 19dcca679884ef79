/**
 * A decision: a recorded item version and its verdict. The state store lists them as
 * {@link StoredDecision} (state/DecisionStore.ts); the admin API shows each with its times as ISO
 * strings, its request as JSON, its author, review and platform (admin/DecisionsApi.ts `Decision`, the
 * same {@link DecisionFields} with those; admin/DecisionView.ts maps one to the other).
 */
import { Schema } from "effect"

const Text = Schema.String

/** The fields of a decision, in the order the admin API shows them. */
export const DecisionFields = {
  source: Text,
  reference: Text,
  version: Schema.Int,
  status: Text,
  contentType: Text,
  mode: Text,
  endpoint: Schema.NullOr(Text),
  /** The exact request body sent to the API, as JSON text; null once erased. */
  request: Schema.NullOr(Text),
  verdict: Schema.Unknown,
  error: Schema.Unknown,
  segments: Schema.Number,
  analysedAt: Schema.NullOr(Text),
  /** When it was recorded, epoch milliseconds. */
  createdAt: Schema.Number,
  deletedAt: Schema.NullOr(Text),
  /**
   * The source's rule that matched (`failureMode` for the failure mode's action), with or without
   * platform actions; null when none did (or, for a version recorded before the daemon kept it, when
   * its rule took no action).
   */
  rule: Schema.NullOr(Text)
}

/** A stored decision, with its author as the item row keeps it. */
export const StoredDecision = Schema.Struct({
  ...DecisionFields,
  /** `<platform>:<identifier>`; null when the event names none. */
  authorKey: Schema.NullOr(Text),
  authorName: Schema.NullOr(Text)
})
/** @see {@link StoredDecision} */
export type StoredDecision = typeof StoredDecision.Type

/** What became of one platform action of a listed decision. */
export const ActionOutcome = Schema.Struct({
  rule: Text,
  kind: Text,
  /** `pending`, `done`, `failed` or `would-do` (a dry run). */
  status: Text
}).annotate({ identifier: "ActionOutcome" })
/** @see {@link ActionOutcome} */
export type ActionOutcome = typeof ActionOutcome.Type

/** A stored decision of the listing, with its platform actions' outcomes (the console's Outcome column). */
export interface ListedStoredDecision extends StoredDecision {
  readonly actions: ReadonlyArray<ActionOutcome>
}
