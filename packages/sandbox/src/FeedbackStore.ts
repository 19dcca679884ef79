/** The feedback the sandbox recorded, listed by `GET /_sandbox/feedback`. */

/** One recorded feedback. */
export interface StoredFeedback {
  /** The uuid answered to the caller. */
  readonly id: string
  /** `text` or `image`. */
  readonly kind: "text" | "image"
  readonly receivedAt: string
  readonly organisation: string
  /** The decoded body. */
  readonly body: unknown
  /** The body exactly as received (UTF-8 text of the raw bytes). */
  readonly rawBody: string
}

/** Recorded feedback, in order of arrival. */
export class FeedbackStore {
  private items: Array<StoredFeedback> = []
  /** Records one feedback. */
  add(item: StoredFeedback): void {
    this.items.push(item)
  }
  /** Every feedback recorded, oldest first. */
  list(): ReadonlyArray<StoredFeedback> {
    return this.items
  }
  /** Forgets everything. */
  clear(): void {
    this.items = []
  }
}
