/** A labelled `<select>` of a filter form, "All" first (the empty value: no filter). */
import { html } from "./html.ts"

/** An option: its value, shown as is, or a value and the words shown for it. */
export type SelectOption = string | readonly [value: string, label: string]

export const Select = (props: {
  id: string
  label: string
  value: string
  options: ReadonlyArray<SelectOption>
  onChange: (value: string) => void
}) => html`<div class="field">
  <label for=${props.id}>${props.label}</label>
  <select id=${props.id} value=${props.value}
    onChange=${(e: Event) => props.onChange((e.target as HTMLSelectElement).value)}>
    <option value="">All</option>
    ${props.options.map((o) => (typeof o === "string" ? html`<option value=${o}>${o}</option>` : html`<option value=${o[0]}>${o[1]}</option>`))}
  </select>
</div>`
