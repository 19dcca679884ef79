/**
 * A sink: where verdicts go after they are recorded. Each sink drains its own outbox (written in the
 * same transaction as the verdict), so every verdict reaches every sink at least once, also across
 * crashes; records carry `source` + `reference` + `version` so a sink can be idempotent.
 *
 * Every sink, built in or a plugin, is declared with the sink SDK (`@warden/sink`'s `Sink.make`) and
 * made into this shape by `PluginSink.make`: the worker's view of it.
 */
import type { DeliveryResult as Result } from "@warden/sink"
import type { Effect } from "effect"
import type { QueuedRecord } from "./QueuedRecord.ts"

/** What became of one record: delivered, retryable or permanent (the SDK's). */
export type DeliveryResult = Result.DeliveryResult

/** A configured sink. */
export interface Sink {
  readonly name: string
  readonly type: string
  /** Most records handed over at once. */
  readonly batchSize: number
  /** Attempts before a record refused for now goes to the dead-letter table. */
  readonly maxAttempts: number
  /**
   * Delivers records (each as the JSON text recorded, QueuedRecord.ts); answers one result per record,
   * in order. Never fails as a whole.
   */
  readonly deliver: (records: ReadonlyArray<QueuedRecord>) => Effect.Effect<ReadonlyArray<DeliveryResult>>
}
