/**
 * The Review page's filters: one source, one kind of row (held items or appeals), kept in the address
 * (`#/review?source=forum&kind=appeal`) so a moderator who works only appeals, or only one community,
 * keeps her view across a reload and can share it. The API filters the pages it reads; rows arriving
 * live from the stream are filtered here with the same rule.
 */
import { query } from "./api.ts"
import { html } from "./html.ts"
import type { ReviewItem } from "./model.ts"
import { Select } from "./Select.ts"

export interface ReviewFilters {
  readonly source: string
  readonly kind: string
}

/** The filters of a Review address's query (`?source=forum&kind=appeal`); unknown kinds are dropped. */
export const reviewFiltersOf = (search: string): ReviewFilters => {
  const params = new URLSearchParams(search)
  const kind = params.get("kind") ?? ""
  return { source: params.get("source") ?? "", kind: kind === "item" || kind === "appeal" ? kind : "" }
}

/** The Review page's address with `filters`. */
export const reviewHash = (filters: ReviewFilters) => `#/review${query({ ...filters })}`

/** Whether the filters are all "All". */
export const unfiltered = (filters: ReviewFilters) => filters.source === "" && filters.kind === ""

/** Whether a row belongs on a screen with `filters` (the API's own rule for `source` and `kind`). */
export const admits = (filters: ReviewFilters, r: Pick<ReviewItem, "source" | "kind">) =>
  (filters.source === "" || r.source === filters.source) && (filters.kind === "" || r.kind === filters.kind)

const KINDS = [
  ["item", "Held items"],
  ["appeal", "Appeals"]
] as const

/** The filter form above the queue. A filter's source that is not configured (any more) stays offered. */
export const ReviewFilterBar = (props: {
  filters: ReviewFilters
  sources: ReadonlyArray<string>
  onChange: (next: ReviewFilters) => void
}) => {
  const sources =
    props.filters.source === "" || props.sources.includes(props.filters.source)
      ? props.sources
      : [...props.sources, props.filters.source]
  const set = (key: keyof ReviewFilters) => (value: string) => props.onChange({ ...props.filters, [key]: value })
  return html`<form class="filters" role="search" aria-label="Filter the queue" onSubmit=${(e: Event) => e.preventDefault()}>
    ${Select({ id: "r-source", label: "Source", value: props.filters.source, options: sources, onChange: set("source") })}
    ${Select({ id: "r-kind", label: "Kind", value: props.filters.kind, options: KINDS, onChange: set("kind") })}
  </form>`
}
