/**
 * A sink: where verdicts go after they are recorded. Each sink drains its own outbox (written in the
 * same transaction as the verdict), so every verdict reaches every sink at least once, also across
 * crashes; records carry `source` + `reference` + `version` so a sink can be idempotent.
 *
 * A failed delivery says whether trying again can help: a retryable one (the receiver down or slow,
 * a full disk, a 5xx, a 408 or 429) is retried with backoff for the sink's retry window; a permanent
 * one (the receiver refused the record: a 4xx; a record that does not decode) goes to the dead
 * letters at once.
 */
import { Data, type Effect } from "effect"
import type { QueuedRecord } from "./QueuedRecord.ts"

/** Why a record was not delivered, and whether trying again can help. */
export class DeliveryFailure extends Data.TaggedError("DeliveryFailure")<{
  readonly message: string
  readonly retryable: boolean
}> {}

/** A failure that may pass (the receiver down, a timeout, a full disk): retried for the sink's window. */
export const retryable = (message: string): DeliveryFailure => new DeliveryFailure({ message, retryable: true })

/** A failure that retrying cannot mend (the record refused, unreadable): dead-lettered at once. */
export const permanent = (message: string): DeliveryFailure => new DeliveryFailure({ message, retryable: false })

/** The result of delivering one record: `undefined` when delivered, else why not. */
export type DeliveryResult = DeliveryFailure | undefined

/** How long a sink retries a record after its first failed delivery, unless its entry says (`retry.window`). */
export const DEFAULT_RETRY_WINDOW_MILLIS = 24 * 60 * 60 * 1000

/** A configured sink. */
export interface Sink {
  readonly name: string
  readonly type: string
  /** Most records handed over at once. */
  readonly batchSize: number
  /**
   * How long a record is retried after its first failed delivery before it goes to the dead letters
   * (`retry.window`; default {@link DEFAULT_RETRY_WINDOW_MILLIS}).
   */
  readonly retryWindowMillis?: number | undefined
  /**
   * Delivers records (each as the JSON text recorded, QueuedRecord.ts); answers one result per record,
   * in order. Never fails as a whole.
   */
  readonly deliver: (records: ReadonlyArray<QueuedRecord>) => Effect.Effect<ReadonlyArray<DeliveryResult>>
}
