/**
 * How the API's limits count "characters" (docs/ASSUMPTIONS.md): Unicode code points, as JSON Schema's
 * `maxLength` does, not UTF-16 code units (JavaScript's `length`, which counts an emoji as 2). The
 * client's local checks, the sandbox and the daemon's `oversize` splitter all count with `count`, so
 * a text one of them accepts is accepted by the others.
 */
import * as Schema from "effect/Schema"

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/** The number of characters (code points) of `text`; a lone surrogate counts as one. */
export const count = (text: string): number => {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    if (isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) i++
    n++
  }
  return n
}

/** The first `max` characters of `text`, never cutting a surrogate pair. */
export const take = (text: string, max: number): string => {
  let n = 0
  let i = 0
  while (i < text.length && n < max) {
    i += isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1)) ? 2 : 1
    n++
  }
  return text.slice(0, i)
}

/**
 * A check of at most `max` characters (code points). Its JSON Schema is `maxLength`, which JSON Schema
 * also counts in code points; `message` is the refusal shown to the user.
 */
export const isAtMost = (max: number, message = `must be at most ${max} characters`) =>
  Schema.makeFilter<string>((text) => count(text) <= max || message, {
    expected: `a string of at most ${max} characters`,
    toJsonSchema: () => [{ maxLength: max }, true],
    arbitraryConstraint: { maxLength: max }
  })
