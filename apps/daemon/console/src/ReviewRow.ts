/** A row of the Review page's queue: a button that selects the item, and its text as a sentence quotes it. */
import { html } from "./html.ts"
import type { ReviewItem } from "./model.ts"
import { langOfRow, rowKey, textOf, verdictOfRow } from "./ReviewQueue.ts"
import { visible } from "./Visible.ts"

/** A row's text in a sentence ("Rejected “…”"), cut at 60 characters. */
export const short = (r: ReviewItem) => {
  const text = textOf(r).replace(/\s+/gu, " ").trim()
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}

/** One row of the queue: a button that selects the item (focus on it is the selection). */
export const Row = (props: { r: ReviewItem; selected: boolean; onSelect: () => void }) => {
  const r = props.r
  const v = verdictOfRow(r)
  return html`<li class=${props.selected ? "selected" : ""}>
    <button type="button" class="pick" data-key=${rowKey(r)} aria-current=${props.selected ? "true" : undefined}
      onFocus=${props.onSelect} onClick=${props.onSelect}>
      <span class=${`sev sev-${v.severity ?? "none"}`}>${v.severity ?? "no verdict"}</span>
      <span class="kind">${r.kind === "appeal" ? "Appeal" : (v.type ?? r.content.type)}</span>
      <span class="text" lang=${langOfRow(r)}>${visible(textOf(r) || r.reference)}</span>
      <span class="muted">${visible(r.source)}</span>
    </button>
  </li>`
}
