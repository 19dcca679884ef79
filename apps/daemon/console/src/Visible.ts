/**
 * Text from strangers as the console shows it: content, author names, references, links, the request
 * sent and errors quoted from platforms. Each hidden character (a bidirectional override that shows
 * `admin\u202Enimda` as "adminadmin", a zero-width space; the daemon's `HiddenCharacters` says which)
 * and each control character is shown as a marked `⟨U+202E⟩`, named in its tooltip, instead of acting
 * on the text around it. Links open only when they are http or https.
 */
import { codePointLabel, describe, segments } from "../../src/domain/HiddenCharacters.ts"
import { html } from "./html.ts"

// C0 and C1 controls and DEL; tab, line feed and carriage return are layout (content keeps its lines).
const control = (cp: number) => (cp < 0x20 && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d) || (cp >= 0x7f && cp <= 0x9f)

const mark = (cp: number) => `⟨${codePointLabel(cp)}⟩`

/** `text` as nodes, each hidden or control character a marked `⟨U+XXXX⟩`. */
export const visible = (text: string | null | undefined) => {
  if (text === null || text === undefined || text === "") return ""
  const parts = segments(text, control)
  if (parts.length === 1 && typeof parts[0] === "string") return text
  return parts.map((p) => (typeof p === "string" ? p : html`<span class="ctl" title=${describe(p)}>${mark(p)}</span>`))
}

/** `text` as plain text with the same marks (a page title, an attribute). */
export const visibleText = (text: string): string =>
  segments(text, control)
    .map((p) => (typeof p === "string" ? p : mark(p)))
    .join("")

/** `href` when it is an http or https URL; otherwise undefined (a `javascript:` or `data:` link is shown as text). */
export const webLink = (href: string | undefined): string | undefined => {
  if (href === undefined) return undefined
  try {
    const url = new URL(href)
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined
  } catch {
    return undefined
  }
}
