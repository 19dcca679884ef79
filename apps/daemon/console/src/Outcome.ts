/**
 * What was done about a decision, in words: the rule that matched, the review it went to ("Review:
 * pending", "Review: rejected by alice") and each platform action's status (done, failed, pending, a
 * dry run's "would do", "not possible on this platform"). Apart from the
 * verdict's recommendation on purpose: "REMOVE" recommended by the API is not "removed".
 */
import { html } from "./html.ts"
import type { ActionOutcome, ListedDecision } from "./model.ts"

const WORDS: Record<string, string> = {
  done: "done",
  failed: "failed",
  pending: "pending",
  "would-do": "would do (dry run)",
  "not-possible": "not possible on this platform",
  unsupported: "not possible on this platform"
}

/** An action's status as the moderator reads it. */
export const statusWords = (status: string) => WORDS[status] ?? status

/** "Review: pending", "Review: rejected by alice", "Appeal: upheld by bob". */
export const reviewWords = (review: Pick<NonNullable<ListedDecision["review"]>, "kind" | "state" | "decidedBy">) =>
  `${review.kind === "appeal" ? "Appeal" : "Review"}: ${review.state}${review.decidedBy === null ? "" : ` by ${review.decidedBy}`}`

/** The rule, the review and the actions' statuses of one decision (a cell of the list, a line of a page). */
export const Outcome = (props: {
  rule: string | null
  review?: ListedDecision["review"] | undefined
  actions: ReadonlyArray<ActionOutcome>
}) => {
  const rule = props.rule ?? props.actions.find((a) => a.rule !== "console")?.rule ?? null
  const review = props.review ?? null
  if (rule === null && review === null && props.actions.length === 0)
    return html`<span class="muted">Nothing done: no rule matched</span>`
  return html`<div class="outcome">
    ${rule === null ? null : html`<span class="rule">Rule <code>${rule}</code></span>`}
    ${review === null ? null : html`<span class="review-state">${reviewWords(review)}</span>`}
    ${
      props.actions.length === 0
        ? html`<span class="muted">no platform action</span>`
        : html`<ul>${props.actions.map(
            (a) =>
              html`<li>${a.kind}${a.rule === "console" ? " (by a moderator)" : ""}: <span class=${`status status-${a.status}`}>${statusWords(a.status)}</span></li>`
          )}</ul>`
    }
  </div>`
}
