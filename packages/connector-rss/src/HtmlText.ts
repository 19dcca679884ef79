/**
 * HTML to plain text for analysis: tags stripped, entities decoded, whitespace normalised, block
 * elements as line breaks, scripts and styles dropped. Built on htmlparser2's streaming tokenizer.
 *
 * @since 0.1.0
 */
import { Parser } from "htmlparser2"

const blocks = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "br",
  "dd",
  "div",
  "dl",
  "dt",
  "figcaption",
  "figure",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "td",
  "th",
  "tr",
  "ul"
])
const skipped = new Set(["script", "style", "noscript", "template", "head"])

/**
 * Converts an HTML fragment (or plain text with entities) to plain text. Paragraph-like elements and
 * `<br>` become line breaks; runs of spaces collapse to one; at most one empty line in a row is kept.
 */
export const toPlainText = (html: string): string => {
  // Fast path: nothing that looks like markup or an entity.
  if (!/[<&]/.test(html)) return normalise(html)
  let out = ""
  let skipDepth = 0
  const parser = new Parser(
    {
      onopentagname(name) {
        if (skipped.has(name)) skipDepth++
        else if (blocks.has(name)) out += "\n"
      },
      onclosetag(name) {
        if (skipped.has(name)) skipDepth = Math.max(0, skipDepth - 1)
        else if (blocks.has(name) && name !== "br" && name !== "hr") out += "\n"
      },
      ontext(text) {
        if (skipDepth === 0) out += text
      }
    },
    { decodeEntities: true, lowerCaseTags: true }
  )
  parser.write(html)
  parser.end()
  return normalise(out)
}

const normalise = (text: string): string =>
  text
    .replace(/\r\n?/g, "\n")
    .replace(/[^\S\n]+/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
