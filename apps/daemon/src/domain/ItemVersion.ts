/**
 * One version of an item as the daemon records it: what was sent, what the API answered, and the
 * source event it came from. A reference gets a new version when its content changes (or when an
 * operator asks for it to be analysed again).
 */
import { Schema } from "effect"
import { Verdict } from "./Verdict.ts"

/** What came of a recorded version. */
export const ItemStatus = Schema.Literals(["analysed", "failed", "unanalysed", "unrecognised"])
/** @see {@link ItemStatus} */
export type ItemStatus = typeof ItemStatus.Type

/** Which API a source analyses with. */
export const Mode = Schema.Literals(["v1", "legacy"])
/** @see {@link Mode} */
export type Mode = typeof Mode.Type

/** Statuses `warden reanalyse` takes: items without a verdict, or refused as bad input. */
export const REANALYSABLE = ["unrecognised", "unanalysed", "failed"] as const
/** @see {@link REANALYSABLE} */
export type Reanalysable = (typeof REANALYSABLE)[number]

/** What was recorded for the newest version of an item: what dedupe compares a new event with. */
export const LatestVersion = Schema.Struct({
  version: Schema.Number,
  contentHash: Schema.String,
  status: Schema.String,
  /** An operator asked for this version to be analysed again (`warden reanalyse`). */
  reanalyse: Schema.optionalKey(Schema.Boolean)
})
/** @see {@link LatestVersion} */
export type LatestVersion = typeof LatestVersion.Type

/** A segment of a split text: its exact request and the response. */
export const SegmentRecord = Schema.Struct({
  request: Schema.String,
  response: Schema.UndefinedOr(Schema.String)
})
/** @see {@link SegmentRecord} */
export type SegmentRecord = typeof SegmentRecord.Type

/** One analysed (or failed, or unanalysed) version of an item, as recorded. */
export const ItemRecord = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Schema.Number,
  contentHash: Schema.String,
  contentType: Schema.String,
  status: ItemStatus,
  mode: Mode,
  endpoint: Schema.UndefinedOr(Schema.String),
  /** The exact JSON text sent (of the most severe segment when split). */
  request: Schema.UndefinedOr(Schema.String),
  response: Schema.UndefinedOr(Schema.String),
  verdict: Schema.UndefinedOr(Verdict),
  error: Schema.Unknown,
  segments: Schema.Array(SegmentRecord),
  /** The source event, as JSON text: what re-analysis and actions need. */
  event: Schema.String,
  /**
   * The author's identifier (`event.author.identifier`) when the caller has the event at hand (the
   * batch processor: no parsing `event` back per item); left out, it is read from `event`.
   */
  author: Schema.optionalKey(Schema.UndefinedOr(Schema.String)),
  /** The source's rule that matched (`failureMode` for the failure mode's action); none when none did. */
  rule: Schema.optionalKey(Schema.UndefinedOr(Schema.String)),
  analysedAt: Schema.UndefinedOr(Schema.String),
  createdAt: Schema.Number
})
/** @see {@link ItemRecord} */
export type ItemRecord = typeof ItemRecord.Type
