/**
 * One polite live region for the whole console: what changed on the page without the moderator
 * doing it ("6 new, 2 HATEFUL") or as the result of a filter ("17 results") is read by a screen
 * reader without moving focus. It is in the page from the start (a region inserted together with its
 * text is often not read) and visually hidden.
 */
import { html, useEffect, useState } from "./html.ts"

let say: (text: string) => void = () => {}

/** Has `text` read politely (after what the screen reader is saying). */
export const announce = (text: string) => say(text)

/** The region; rendered once, by the page's shell. */
export const Announcer = () => {
  const [text, setText] = useState("")
  useEffect(() => {
    let clear: ReturnType<typeof setTimeout> | undefined
    say = (next) => {
      // The same words twice in a row are still a change: emptied first, then set.
      setText("")
      clearTimeout(clear)
      clear = setTimeout(() => setText(next), 50)
    }
    return () => {
      clearTimeout(clear)
      say = () => {}
    }
  }, [])
  return html`<div id="announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${text}</div>`
}
