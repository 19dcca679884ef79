/**
 * Text made inert for a terminal. What Warden prints comes partly from strangers: a feed server's
 * reason phrase or body quoted in an error, a comment's text, an author's name, a link. Written raw,
 * an ESC or a C1 CSI (U+009B) starts a terminal control sequence (clear the screen, set the window
 * title with OSC, ring the bell), and a bidirectional override reorders what the operator reads.
 *
 * {@link inert} escapes every C0 control, DEL, every C1 control, U+2028/U+2029 and the hidden
 * characters of `HiddenCharacters` (bidirectional controls, zero-width characters), as JSON writes
 * them (`\n`, `\u001b`, `\u202e`; a character past U+FFFF as its two UTF-16 halves). So a JSON line
 * stays valid JSON meaning the same, and every printer (log lines, the stdout sink, the CLI) uses this
 * one function. Our own colours are added after it, around the escaped text.
 */
import { segments } from "./HiddenCharacters.ts"

const SHORT: Readonly<Record<number, string>> = { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r" }

const unit = (u: number) => `\\u${u.toString(16).padStart(4, "0")}`

const escape = (cp: number): string =>
  SHORT[cp] ??
  (cp > 0xffff
    ? String.fromCodePoint(cp)
        .split("")
        .map((c) => unit(c.charCodeAt(0)))
        .join("")
    : unit(cp))

// Controls (C0, DEL, C1) always; the line and paragraph separators, which some terminals break lines at.
const isControl = (cp: number) => cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)
const SEPARATORS = /[\u2028\u2029]/gu

/**
 * `text` with every control and hidden character escaped. With `lines`, a line feed stays one (for
 * output that is meant to be several lines: a table, indented JSON).
 */
export const inert = (text: string, options: { readonly lines?: boolean } = {}): string => {
  const keep = options.lines === true ? (cp: number) => cp === 0x0a : () => false
  return segments(text, (cp) => isControl(cp) && !keep(cp))
    .map((s) => (typeof s === "number" ? escape(s) : s.replace(SEPARATORS, (c) => unit(c.charCodeAt(0)))))
    .join("")
}
