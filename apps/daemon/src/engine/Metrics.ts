/**
 * The daemon's own metrics (the API client adds its `warden_api_*` ones). Labels stay low-cardinality:
 * source ids, statuses, verdict types and severities, sink names — never references or content.
 */
import { Metric } from "effect"

/** Events received from each source. */
export const itemsIn = Metric.counter("warden_items_in_total", {
  description: "Item events received from sources",
  incremental: true
})

/** Item versions recorded, by source and status (analysed, failed, unanalysed, unrecognised). */
export const itemsOut = Metric.counter("warden_items_out_total", {
  description: "Item versions recorded, by status",
  incremental: true
})

/** Answers of the API that held no verdict (`200 {"foo":1}`), by source and endpoint. */
export const unrecognised = Metric.counter("warden_unrecognised_answers_total", {
  description: "API answers that held none of the fields a verdict is made of, by source and endpoint",
  incremental: true
})

/** Verdicts recorded, by type and severity. */
export const verdicts = Metric.counter("warden_verdicts_total", {
  description: "Verdicts recorded, by type and severity",
  incremental: true
})

/** Verdicts delivered to each sink. */
export const sinkDelivered = Metric.counter("warden_sink_delivered_total", {
  description: "Verdicts delivered, by sink",
  incremental: true
})

/** Sink deliveries that failed (and will be retried, or dead-lettered). */
export const sinkFailures = Metric.counter("warden_sink_failures_total", {
  description: "Failed sink deliveries, by sink",
  incremental: true
})

/** Verdicts waiting for each sink (pending: due, or waiting for a retry). */
export const backlog = Metric.gauge("warden_sink_backlog", { description: "Verdicts waiting for delivery, by sink" })

/** Age of the oldest verdict waiting for each sink: how far behind a failing sink is (0 when none waits). */
export const sinkOldestPendingAge = Metric.gauge("warden_sink_oldest_pending_seconds", {
  description: "Seconds since the oldest verdict waiting for delivery was queued, by sink (0 when none waits)"
})

/** Verdicts moved to the dead letters: refused by the receiver, or still failing when the retry window ended. */
export const sinkDeadLetters = Metric.counter("warden_sink_dead_letters_total", {
  description: "Verdicts moved to the dead letters, by sink",
  incremental: true
})

/**
 * Seconds since each source last committed a checkpoint: its last batch handled, or its last poll that
 * found nothing new (a `progress` event, committed once every event before it is handled).
 */
export const checkpointLag = Metric.gauge("warden_checkpoint_lag_seconds", {
  description: "Seconds since the source's last checkpoint commit (its last batch handled, or its last quiet poll)"
})

/** 1 while a source is paused (credentials or permission refused), else 0. */
export const sourcePaused = Metric.gauge("warden_source_paused", {
  description: "1 while the source is paused by an authentication or permission error"
})

/** Batches handed back because the API was unavailable. */
export const batchRetries = Metric.counter("warden_batch_retries_total", {
  description: "Batches sent again after the API was unavailable",
  incremental: true
})

/** Errors reported by sources (feed down, malformed payloads). */
export const sourceErrors = Metric.counter("warden_source_errors_total", {
  description: "Errors reported by sources",
  incremental: true
})

/** Events a source emitted that the daemon could not take (dead-lettered and skipped), by source and field. */
export const sourceDeadLetters = Metric.counter("warden_source_dead_letters_total", {
  description: "Source events dead-lettered (invalid reference, checkpoint or content) and skipped",
  incremental: true
})

/** Restarts of a source after its stream failed (a retryable ConnectorError or a defect), by source and reason. */
export const sourceRestarts = Metric.counter("warden_source_restarts_total", {
  description: "Source restarts after its stream failed, with backoff",
  incremental: true
})

/** Processed batch messages (and their replies) deleted from the cluster tables once acknowledged. */
export const messagesPurged = Metric.counter("warden_cluster_messages_purged_total", {
  description: "Processed batch messages deleted from the cluster tables, by source",
  incremental: true
})

/** Rows per state table (refreshed at most once a minute, on scrape). */
export const stateTableRows = Metric.gauge("warden_state_table_rows", { description: "Rows per state table" })

/** Bytes per state table, indexes included (refreshed at most once a minute, on scrape). */
export const stateTableBytes = Metric.gauge("warden_state_table_bytes", {
  description: "Bytes on disk per state table, indexes included"
})

/** Age of the oldest batch message not processed yet (0 when none waits). */
export const oldestUnprocessedSeconds = Metric.gauge("warden_cluster_oldest_unprocessed_seconds", {
  description: "Seconds since the oldest unprocessed cluster message was sent"
})

/** Item versions each rule matched, by source and rule (issue 36: what a rule does, actions or not). */
export const ruleMatches = Metric.counter("warden_rule_matches_total", {
  description: "Item versions recorded that a rule matched, by source and rule",
  incremental: true
})

/** Review rows pending, by source (refreshed on scrape). */
export const reviewPending = Metric.gauge("warden_review_pending", {
  description: "Items waiting in the review queue, by source"
})

/** Age of the oldest pending review row, by source (0 when none waits; refreshed on scrape). */
export const reviewOldestPendingSeconds = Metric.gauge("warden_review_oldest_pending_seconds", {
  description: "Seconds the oldest item of the review queue has waited, by source"
})

/** Review decisions, by moderator and outcome (approved, rejected, upheld, denied). */
export const reviewDecisions = Metric.counter("warden_review_decisions_total", {
  description: "Review queue decisions, by moderator and outcome",
  incremental: true
})
