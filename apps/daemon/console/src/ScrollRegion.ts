/**
 * A table that may be wider than the screen (the pipeline's, a decision's actions on a phone), in a
 * box that scrolls sideways. While it overflows, the box is a Tab stop with a name, so a keyboard user
 * can reach it and scroll it with the arrow keys (WCAG 2.1.1; axe's `scrollable-region-focusable`); while
 * the table fits, it is not an extra Tab stop.
 */
import { html, useEffect, useRef, useState } from "./html.ts"

/** `children` (a table) in a box scrolling sideways, named `label` for a screen reader. */
export const ScrollRegion = (props: { label: string; children: unknown }) => {
  const box = useRef<HTMLDivElement>(null)
  const [overflows, setOverflows] = useState(false)
  useEffect(() => {
    const element = box.current
    if (element === null) return
    const measure = () => setOverflows(element.scrollWidth > element.clientWidth + 1)
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    if (element.firstElementChild !== null) observer.observe(element.firstElementChild)
    return () => observer.disconnect()
  }, [])
  return html`<div class="scroll" ref=${box} tabindex=${overflows ? "0" : undefined}
    role=${overflows ? "region" : undefined} aria-label=${overflows ? props.label : undefined}>${props.children}</div>`
}
