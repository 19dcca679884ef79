/**
 * Splits a text longer than an endpoint's limit into segments that each fit, cutting at sentence
 * boundaries when it can, then at word boundaries, and between grapheme clusters only when a single
 * word is too long. Boundaries come from `Intl.Segmenter`, so Thai and Japanese (no spaces between
 * words) are cut between words, and a surrogate pair, an emoji sequence or a letter with its accents
 * is never cut. Lengths are counted in characters as the API counts them (`Characters`, code points).
 */
import { Characters } from "@warden/core"

const sentences = new Intl.Segmenter(undefined, { granularity: "sentence" })
const words = new Intl.Segmenter(undefined, { granularity: "word" })
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" })

const pieces = (segmenter: Intl.Segmenter, text: string): Array<{ text: string; length: number }> =>
  Array.from(segmenter.segment(text), (s) => ({ text: s.segment, length: Characters.count(s.segment) }))

/** Packs pieces into segments of at most `max` characters; pieces that do not fit are split finer. */
class Packer {
  readonly segments: Array<string> = []
  private current = ""
  private length = 0
  private readonly max: number
  constructor(max: number) {
    this.max = max
  }

  get size() {
    return this.length
  }

  fits(length: number) {
    return this.length + length <= this.max
  }

  add(piece: { text: string; length: number }) {
    this.current += piece.text
    this.length += piece.length
  }

  flush() {
    const segment = this.current.trim()
    if (segment !== "") this.segments.push(segment)
    this.current = ""
    this.length = 0
  }

  /** A word too long for an empty segment: cut between grapheme clusters. */
  addLongWord(word: string) {
    for (const g of pieces(graphemes, word)) {
      if (!this.fits(g.length)) this.flush()
      this.add(g)
    }
  }

  addWords(text: string) {
    for (const word of pieces(words, text)) {
      if (this.fits(word.length)) this.add(word)
      else {
        this.flush()
        if (word.length <= this.max) this.add(word)
        else this.addLongWord(word.text)
      }
    }
  }
}

/** The segments of `text`, each at most `max` characters; a text within the limit is one segment. */
export const split = (text: string, max: number): Array<string> => {
  if (Characters.count(text) <= max) return [text]
  const packer = new Packer(max)
  for (const sentence of pieces(sentences, text)) {
    if (packer.fits(sentence.length)) {
      packer.add(sentence)
      continue
    }
    // A short segment so far is filled with the words of the next sentence rather than sent alone.
    if (packer.size > max / 4) packer.flush()
    if (packer.fits(sentence.length)) packer.add(sentence)
    else packer.addWords(sentence.text)
  }
  packer.flush()
  return packer.segments.length === 0 ? [text.trim()] : packer.segments
}

/** `text` cut to at most `max` characters, at a word boundary when one is near (within the last 20%). */
export const truncate = (text: string, max: number): string => {
  if (Characters.count(text) <= max) return text
  let kept = ""
  let length = 0
  for (const word of pieces(words, text)) {
    if (length + word.length > max) break
    kept += word.text
    length += word.length
  }
  if (length > max * 0.8) return kept.trimEnd()
  for (const g of pieces(graphemes, text.slice(kept.length))) {
    if (length + g.length > max) break
    kept += g.text
    length += g.length
  }
  return kept.trimEnd()
}
