/**
 * A verdict record as a sink receives it: the item version's key (`source`, `reference`, `version`) and
 * the record as the JSON text the daemon recorded (its fields: the daemon's published JSON Schema of the
 * record, `warden config schema --record`). A sink that forwards records sends `json` as it is; one that
 * needs fields parses it, and a text it cannot use is a permanent failure for that record.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** One record handed to `deliver`. */
export interface SinkRecord {
  readonly source: string
  readonly reference: string
  /** The item's version: an edit is a new version, and a new record. */
  readonly version: number
  /** The verdict record, as JSON text, exactly as recorded. */
  readonly json: string
}

/** The runtime shape of a record (what the conformance kit's child process reads back). */
export const SinkRecord = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Schema.Int,
  json: Schema.String
})

/**
 * The delivery id of a record, `source/reference/version`: the same on every redelivery of one record
 * and different for every other, so a sink (or its receiver) that keeps the ids it has seen delivers
 * each record once (NATS `Nats-Msg-Id`, the webhook's `webhook-id`, the sql sink's primary key).
 */
export const deliveryId = (record: Pick<SinkRecord, "source" | "reference" | "version">): string =>
  `${record.source}/${record.reference}/${record.version}`
