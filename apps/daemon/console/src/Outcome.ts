/**
 * What was done about a decision, in words: the rule that matched and each platform action's status
 * (done, failed, pending, a dry run's "would do", "not possible on this platform"). Apart from the
 * verdict's recommendation on purpose: "REMOVE" recommended by the API is not "removed".
 */
import { html } from "./html.ts"
import type { ActionOutcome } from "./model.ts"

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

/** The rule and the actions' statuses of one decision (a cell of the list, a line of a page). */
export const Outcome = (props: { rule: string | null; actions: ReadonlyArray<ActionOutcome> }) => {
  const rule = props.rule ?? props.actions.find((a) => a.rule !== "console")?.rule ?? null
  if (rule === null && props.actions.length === 0) return html`<span class="muted">Nothing done: no rule matched</span>`
  return html`<div class="outcome">
    ${rule === null ? null : html`<span class="rule">Rule <code>${rule}</code></span>`}
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
