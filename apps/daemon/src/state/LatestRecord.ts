/**
 * The newest recorded version of an item, as a push source's check reads its decision: read back from
 * `warden_items` (IntakeStore.latestRecord) or taken from the row the record transaction has just
 * written (the check's wake-up, RecordedSignal), decoded by the same schema either way.
 */
import { Schema } from "effect"
import * as Rows from "./internal/Rows.ts"

/** See the module documentation. */
export const LatestRecord = Schema.Struct({
  version: Rows.Int,
  content_hash: Schema.String,
  status: Schema.String,
  verdict: Rows.JsonText,
  rule: Schema.optionalKey(Rows.Text)
})
/** @see {@link LatestRecord} */
export type LatestRecord = typeof LatestRecord.Type

/** Decodes rows read back from `warden_items`, or dies naming the table. */
export const decodeRows = Rows.decode("warden_items", LatestRecord)

/**
 * The record of a row of `warden_items` the daemon itself has just written (its columns as inserted);
 * throws if it does not decode, a defect like a stored row that does not.
 */
export const ofWrittenRow: (row: unknown) => LatestRecord = Schema.decodeUnknownSync(LatestRecord)
