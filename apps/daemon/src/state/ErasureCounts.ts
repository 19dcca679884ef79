/**
 * What an erasure changed: the counts per place and the outcome the CLI and admin API show. Shared by
 * the per-key statements, the audit rows and the service.
 */

/** How many stored rows an erasure changed, per place. */
export interface Counts {
  /** Item versions whose content was erased. */
  readonly items: number
  readonly segments: number
  readonly outbox: number
  readonly deadLetters: number
  readonly sourceDeadLetters: number
  readonly feedback: number
  /** Rows of the sinks' tables: the `sql` sink's `warden_verdicts` and any a sink declares (`stores`). */
  readonly sqlSink: number
  /** Processed cluster messages that carried the items (unprocessed ones are work in flight). */
  readonly clusterMessages: number
  /** The author's strikes (erasure by author). */
  readonly strikes: number
  /** Review rows whose statement, note or author went. */
  readonly reviews: number
  /** Items a push source received and had not yet recorded (`warden_intake`), deleted whole. */
  readonly intake: number
}

/** The outcome of one erasure. */
export interface Erased {
  readonly counts: Counts
  /** The references erased (per source), for the operator's record. */
  readonly references: ReadonlyArray<{ readonly source: string; readonly reference: string }>
  /** The audit row's id (`null` when the selector named no stored item). */
  readonly audit: string | null
}

export const ZERO: Counts = {
  items: 0,
  segments: 0,
  outbox: 0,
  deadLetters: 0,
  sourceDeadLetters: 0,
  feedback: 0,
  sqlSink: 0,
  clusterMessages: 0,
  strikes: 0,
  reviews: 0,
  intake: 0
}
