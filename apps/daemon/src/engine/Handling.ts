/**
 * How a batch came to be sent, and so how the entity processes it: the source's dispatch sets it
 * (BatchDispatch.ts, ReanalysisSweep.ts), the batch message carries it (ItemBatch.ts), the processor and
 * the dedupe read it (BatchProcessor.ts, Dedupe.ts).
 */

/** How a batch is processed: normally, or without the API (failure mode allow/reject). */
export type Degraded = "allow" | "reject" | undefined

/** How a batch came to be sent, and so how it is processed. */
export interface Handling {
  /** Recorded without the API (the source's failure mode, past its delay). */
  readonly degraded?: Degraded
  /**
   * The batch re-sends stored versions that have no verdict (the source's re-analysis sweep): one
   * whose item has had a newer version recorded since the sweep read it is stale, and left alone
   * (Dedupe.plan), never recorded again as the newest.
   */
  readonly reanalysis?: boolean | undefined
}
