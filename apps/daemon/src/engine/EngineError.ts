/**
 * Why a batch of events could not be processed now. Neither loses anything: the batch is not
 * acknowledged, its checkpoint is not committed, and the source sends it again after a pause.
 */
import { Schema } from "effect"

/**
 * The API refused the credentials or the permission (401/403): retrying soon will not help, so the
 * source pauses, `/readyz` fails, and one line a minute says why until the key works again.
 */
export class SourcePaused extends Schema.TaggedError<SourcePaused>()("SourcePaused", {
  source: Schema.String,
  code: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `source ${this.source} paused: ${this.code} (${this.detail})`
  }
}

/** The API could not be reached or kept failing after the transport's retries: try the batch again later. */
export class ApiUnavailable extends Schema.TaggedError<ApiUnavailable>()("ApiUnavailable", {
  source: Schema.String,
  code: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `API unavailable for source ${this.source}: ${this.code} (${this.detail})`
  }
}

/** A batch-level failure. */
export const EngineError = Schema.Union([SourcePaused, ApiUnavailable])
export type EngineError = SourcePaused | ApiUnavailable
