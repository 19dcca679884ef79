/**
 * Characters that change how text reads without being seen. Content, author names and links come
 * from strangers, and these are how they mislead a moderator: a bidirectional override turns the
 * author `admin\u202Enimda` into "adminadmin" on screen and `txt.exe` into "exe.txt"; a zero-width
 * space inside "id\u200Biot" hides the word from a search and from the eye alike.
 *
 * One definition for every place that shows or searches such text: the console marks each one
 * visibly (`console/src/Visible.ts`), the terminal printers escape it (`TerminalText`), and the
 * decision search ignores the {@link SEARCH_IGNORED} ones on both sides (`DecisionStore`). No Node
 * API here: the console's bundle imports this file.
 *
 * Left alone where they are how a script or an emoji is written: a zero-width joiner inside an emoji
 * sequence (👩‍💻), a joiner or non-joiner between two letters of a script that uses them (Persian,
 * Hindi: not Latin, Greek or Cyrillic, where they only hide), and the tags of an emoji flag (🏴 of
 * England).
 */

/** The hidden characters that are one code unit (the search strips exactly these: SQLite's `replace` takes them one by one). */
export const SEARCH_IGNORED: ReadonlyArray<string> = [
  "\u00ad", // soft hyphen
  "\u034f", // combining grapheme joiner
  "\u061c", // Arabic letter mark
  "\u180e", // Mongolian vowel separator
  "\u200b", // zero-width space
  "\u200c", // zero-width non-joiner
  "\u200d", // zero-width joiner
  "\u200e", // left-to-right mark
  "\u200f", // right-to-left mark
  "\u202a", // left-to-right embedding
  "\u202b", // right-to-left embedding
  "\u202c", // pop directional formatting
  "\u202d", // left-to-right override
  "\u202e", // right-to-left override
  "\u2060", // word joiner
  "\u2061", // function application
  "\u2062", // invisible times
  "\u2063", // invisible separator
  "\u2064", // invisible plus
  "\u2066", // left-to-right isolate
  "\u2067", // right-to-left isolate
  "\u2068", // first strong isolate
  "\u2069", // pop directional isolate
  "\u206a", // inhibit symmetric swapping (deprecated, like the five after it)
  "\u206b",
  "\u206c",
  "\u206d",
  "\u206e",
  "\u206f",
  "\ufeff", // zero-width no-break space (byte-order mark)
  "\ufff9", // interlinear annotation anchor, separator, terminator
  "\ufffa",
  "\ufffb"
]

const NAMES: Readonly<Record<number, string>> = {
  173: "SOFT HYPHEN",
  1564: "ARABIC LETTER MARK",
  8203: "ZERO WIDTH SPACE",
  8204: "ZERO WIDTH NON-JOINER",
  8205: "ZERO WIDTH JOINER",
  8206: "LEFT-TO-RIGHT MARK",
  8207: "RIGHT-TO-LEFT MARK",
  8234: "LEFT-TO-RIGHT EMBEDDING",
  8235: "RIGHT-TO-LEFT EMBEDDING",
  8236: "POP DIRECTIONAL FORMATTING",
  8237: "LEFT-TO-RIGHT OVERRIDE",
  8238: "RIGHT-TO-LEFT OVERRIDE",
  8288: "WORD JOINER",
  8294: "LEFT-TO-RIGHT ISOLATE",
  8295: "RIGHT-TO-LEFT ISOLATE",
  8296: "FIRST STRONG ISOLATE",
  8297: "POP DIRECTIONAL ISOLATE",
  65279: "ZERO WIDTH NO-BREAK SPACE"
}

// Every candidate: the list above, the tag characters (U+E0000–U+E007F, "ASCII smuggling"), and the
// C0 and C1 controls and DEL (hidden or not is the caller's choice: see `segments`).
const CANDIDATE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${SEARCH_IGNORED.join("")}\\u{e0000}-\\u{e007f}]`, "gu")

const isControl = (cp: number) => cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u
// A joiner's neighbour that can take it: a letter or mark of a script that writes with joiners.
const LETTER = /[\p{L}\p{M}]/u
const HIDES_IN = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u

const before = (text: string, index: number): string => {
  const low = text.charCodeAt(index - 1)
  return low >= 0xdc00 && low <= 0xdfff && index >= 2 ? text.slice(index - 2, index) : text.slice(index - 1, index)
}
const after = (text: string, index: number): string => String.fromCodePoint(text.codePointAt(index) ?? 0)

/** Whether the joiner at `index` writes a script or an emoji rather than hides something. */
const joins = (text: string, index: number, cp: number): boolean => {
  const prev = before(text, index)
  const next = after(text, index + 1)
  if (cp === 0x200d && PICTOGRAPHIC.test(next)) {
    // After the emoji itself, its presentation selector or its skin tone.
    const p = prev.codePointAt(0) ?? 0
    if (PICTOGRAPHIC.test(prev) || p === 0xfe0f || (p >= 0x1f3fb && p <= 0x1f3ff)) return true
  }
  return LETTER.test(prev) && LETTER.test(next) && !HIDES_IN.test(prev) && !HIDES_IN.test(next)
}

/** Whether the tag character at `index` is inside an emoji flag (🏴 then tags, ending with U+E007F). */
const inFlag = (text: string, index: number): boolean => {
  let i = index
  while (i >= 2) {
    const cp = text.codePointAt(i - 2) ?? 0
    if (cp === 0x1f3f4) break
    if (cp < 0xe0000 || cp > 0xe007f) return false
    i -= 2
  }
  if (i < 2) return false
  let j = index
  while (j < text.length) {
    const cp = text.codePointAt(j) ?? 0
    if (cp === 0xe007f) return true
    if (cp < 0xe0000 || cp > 0xe007e) return false
    j += 2
  }
  return false
}

/** Whether the code point `cp` at `index` of `text` is hidden there (a control is not: see {@link segments}). */
const hiddenAt = (text: string, index: number, cp: number): boolean => {
  if (isControl(cp)) return false
  if (cp === 0x200c || cp === 0x200d) return !joins(text, index, cp)
  if (cp >= 0xe0000) return !inFlag(text, index)
  return true
}

/**
 * `text` cut into what to show as it is (strings) and what to show as a mark (code points): each
 * hidden character, and each control `control` picks (none by default).
 */
export const segments = (
  text: string,
  control: (codePoint: number) => boolean = () => false
): Array<string | number> => {
  const out: Array<string | number> = []
  let last = 0
  for (const match of text.matchAll(CANDIDATE)) {
    const index = match.index
    const cp = match[0].codePointAt(0)!
    if (isControl(cp) ? !control(cp) : !hiddenAt(text, index, cp)) continue
    if (index > last) out.push(text.slice(last, index))
    out.push(cp)
    last = index + match[0].length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}

/** `U+202E`. */
export const codePointLabel = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`

/** `U+202E RIGHT-TO-LEFT OVERRIDE` (the name for the common ones). */
export const describe = (cp: number): string => {
  const name = NAMES[cp] ?? (cp >= 0xe0000 ? "TAG CHARACTER" : isControl(cp) ? "CONTROL CHARACTER" : undefined)
  return name === undefined ? codePointLabel(cp) : `${codePointLabel(cp)} ${name}`
}

const IGNORED = new RegExp(`[${SEARCH_IGNORED.join("")}]`, "gu")
const HAS_IGNORED = new RegExp(`[${SEARCH_IGNORED.join("")}]`, "u")

/** Whether `text` holds one of the {@link SEARCH_IGNORED} characters. */
export const hasIgnored = (text: string): boolean => HAS_IGNORED.test(text)

/** `text` without the {@link SEARCH_IGNORED} characters: what a search compares. */
export const withoutIgnored = (text: string): string => text.replace(IGNORED, "")
