/**
 * A sink: where verdicts go after they are recorded. Each sink drains its own outbox (written in the
 * same transaction as the verdict), so every verdict reaches every sink at least once, also across
 * crashes; records carry `source` + `reference` + `version` so a sink can be idempotent.
 */
import type { Effect } from "effect"
import type { QueuedRecord } from "./QueuedRecord.ts"

/** The result of delivering one record: `undefined` when delivered, else why not. */
export type DeliveryResult = string | undefined

/** A configured sink. */
export interface Sink {
  readonly name: string
  readonly type: string
  /** Most records handed over at once. */
  readonly batchSize: number
  /** Attempts before a record goes to the dead-letter table. */
  readonly maxAttempts: number
  /**
   * Delivers records (each as the JSON text recorded, QueuedRecord.ts); answers one result per record,
   * in order. Never fails as a whole.
   */
  readonly deliver: (records: ReadonlyArray<QueuedRecord>) => Effect.Effect<ReadonlyArray<DeliveryResult>>
}
