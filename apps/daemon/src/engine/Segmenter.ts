/**
 * Splits a text longer than an endpoint's limit into segments that each fit, cutting at sentence
 * boundaries when it can, then at word boundaries, and mid-word only when a single word is too long.
 */

const SENTENCE_END = /[.!?。！？…]+["'’”)\]]*\s+/g

const lastBreak = (text: string, max: number, pattern: RegExp): number => {
  let best = -1
  pattern.lastIndex = 0
  for (let m = pattern.exec(text); m !== null && m.index + m[0].length <= max; m = pattern.exec(text)) {
    best = m.index + m[0].length
  }
  return best
}

/** The segments of `text`, each at most `max` characters; a text within the limit is one segment. */
export const split = (text: string, max: number): Array<string> => {
  const segments: Array<string> = []
  let rest = text
  while (rest.length > max) {
    let cut = lastBreak(rest, max, SENTENCE_END)
    if (cut <= max / 4) cut = lastBreak(rest, max, /\s+/g)
    if (cut <= 0) cut = max
    segments.push(rest.slice(0, cut).trimEnd())
    rest = rest.slice(cut).trimStart()
  }
  if (rest.length > 0 || segments.length === 0) segments.push(rest)
  return segments
}

/** `text` cut to at most `max` characters at a word boundary when one is near. */
export const truncate = (text: string, max: number): string => {
  if (text.length <= max) return text
  const cut = lastBreak(text, max, /\s+/g)
  return (cut > max * 0.8 ? text.slice(0, cut) : text.slice(0, max)).trimEnd()
}
