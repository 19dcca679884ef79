/**
 * A verdict record as a sink receives it from the outbox: the JSON text the record step wrote with its
 * item version (same transaction), and the version's key. A sink that forwards the record (jsonl lines,
 * webhook bodies, stdout's json lines, the sql sink's `record` column) sends that text as it is: no
 * `JSON.parse` and `JSON.stringify` per verdict of a text the daemon wrote itself. A sink that needs its
 * fields (stdout's pretty lines, the sql sink's columns) decodes it with the schema ({@link decode}):
 * it was read back from the database, so a text that is not a record is a failed delivery naming the
 * problem (retried, then dead-lettered with that error), never a cast.
 */
import { FieldViolations } from "@warden/core"
import { Result, Schema } from "effect"
import { VerdictRecord } from "../domain/VerdictRecord.ts"

/** A queued verdict record: its item version, and the record as JSON text. */
export interface QueuedRecord {
  readonly source: string
  readonly reference: string
  readonly version: number
  /** The verdict record, as JSON text, exactly as recorded. */
  readonly json: string
}

/** A record held in memory, queued as the record step queues it. */
export const fromRecord = (record: VerdictRecord): QueuedRecord => ({
  source: record.source,
  reference: record.reference,
  version: record.version,
  json: JSON.stringify(record)
})

const decodeJson = Schema.decodeUnknownResult(Schema.fromJsonString(VerdictRecord))

/** The record a queued text holds, or why it is not one (every problem, each with its field). */
export const decode = (queued: QueuedRecord): Result.Result<VerdictRecord, string> => {
  const decoded = decodeJson(queued.json)
  if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
  // Only a failure is decoded again with every problem named (Schema's slower path), in one line as
  // the API's field violations are: `version: Expected number; status: Expected ...`.
  return Result.mapError(
    decodeJson(queued.json, { errors: "all" }),
    (error) =>
      `the stored verdict record does not decode: ${FieldViolations.formatViolations(FieldViolations.fromSchemaError(error))}`
  )
}
