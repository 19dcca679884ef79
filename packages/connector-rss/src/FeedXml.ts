/**
 * One pass over an RSS 0.9x/2.0, Atom 0.3/1.0 or RDF/RSS 1.0 document with htmlparser2's XML tokenizer,
 * keeping only what the connector reads: the channel's title and language, and for every item its direct
 * children's raw text, its links and its authors. No document tree is built.
 *
 * Why not a feed library: feedsmith (used before, see the README) builds the whole document's tree first. For
 * a 20,000-item feed that was ~110 MB of transient heap and 30-65 µs of CPU per item, before the daemon
 * could analyse the first item (issue 12's memory and CPU targets). Values follow feedsmith's rules, and
 * `test/feed-xml.test.ts` checks them against feedsmith over every fixture feed:
 * - an element's value is its raw inner markup with comments removed, HTML entities decoded outside CDATA
 *   sections, CDATA kept verbatim, then trimmed (so unescaped HTML inside `<description>` is kept as HTML);
 * - line ends are read as `\n` (XML's end-of-line handling);
 * - element and attribute names are lower-cased, and a namespace prefix is resolved by its URI (first
 *   declaration wins), so `<dublin:creator xmlns:dublin="http://purl.org/dc/elements/1.1/">` is `dc:creator`.
 *
 * A document whose root is not `rss`, `feed` or `rdf:RDF`, or that ends inside an element (truncated), fails
 * with a {@link FeedXmlError}. Like feedsmith, it tolerates what real feeds get wrong and a reader can still
 * make sense of: a closing tag that matches no open element is ignored, one that closes an ancestor closes
 * the elements left open inside it (unescaped `<br>` in a description).
 *
 * @since 0.2.0
 */
import { decodeHTML } from "entities"
import { Tokenizer } from "htmlparser2"

/** The XML feed formats. */
export type XmlFormat = "rss" | "atom" | "rdf"

/** A child element met more than once keeps its first occurrence, as feedsmith's singular fields do. */
export interface XmlNode {
  /** Canonical child name (`title`, `dc:creator`, `content:encoded`) → raw inner markup. */
  readonly raw: Record<string, string>
  /** Canonical child name → that child's attributes (names canonical, values decoded and trimmed), if it has any. */
  readonly attributes: Record<string, Readonly<Record<string, string>>>
  /** Every `link` and `atom:link` child, in document order. */
  readonly links: Array<{ readonly name: string; readonly attributes: Readonly<Record<string, string>> }>
  /** Every `author` child's own children (Atom `name`, `email`, `uri`, 0.3 `url`), raw. */
  readonly people: Array<Map<string, string>>
  /** The element's own attributes (`rdf:about`, `xml:base`, `xml:lang`). */
  readonly own: Readonly<Record<string, string>>
}

/** A feed document as read: the channel (the Atom root) and its items or entries, in document order. */
export interface XmlFeed {
  readonly format: XmlFormat
  readonly channel: XmlNode | undefined
  readonly entries: ReadonlyArray<XmlNode>
}

/** Why a document could not be read; `message` says where. */
export class FeedXmlError extends Error {
  override readonly name = "FeedXmlError"
}

/** Known namespaces by URI (lower-cased, with and without the trailing separator, http and https). */
const namespaces: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>()
  const add = (prefix: string, ...uris: ReadonlyArray<string>) => {
    for (const uri of uris) {
      const bare = uri.toLowerCase().replace(/^https?:\/\//, "")
      for (const scheme of ["http://", "https://"]) {
        map.set(scheme + bare, prefix)
        if (bare.endsWith("/")) map.set(scheme + bare.slice(0, -1), prefix)
        else if (!bare.endsWith("#") && !bare.endsWith(".dtd")) map.set(`${scheme + bare}/`, prefix)
      }
    }
  }
  add("atom", "http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#")
  add("rss", "http://purl.org/rss/1.0/")
  add("content", "http://purl.org/rss/1.0/modules/content/")
  add("dc", "http://purl.org/dc/elements/1.1/", "http://dublincore.org/documents/dcmi-namespace/")
  add("dcterms", "http://purl.org/dc/terms/", "http://dublincore.org/documents/dcmi-terms/")
  add("itunes", "http://www.itunes.com/dtds/podcast-1.0.dtd")
  add("wfw", "http://wellformedweb.org/CommentAPI/")
  add("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#")
  return map
})()

const COMMENT_START = "<!--"
const COMMENT_END = "-->"
const CDATA_START = "<![CDATA["
const CDATA_END = "]]>"

const decodeEntities = (s: string): string => (s.includes("&") ? decodeHTML(s) : s)

const stripComments = (s: string): string => {
  let at = s.indexOf(COMMENT_START)
  if (at === -1) return s
  let out = ""
  let last = 0
  while (at !== -1) {
    out += s.slice(last, at)
    const end = s.indexOf(COMMENT_END, at + 4)
    if (end === -1) return s
    last = end + 3
    at = s.indexOf(COMMENT_START, last)
  }
  return out + s.slice(last)
}

const decodeOutsideCdata = (s: string): string => {
  let at = s.indexOf(CDATA_START)
  if (at === -1) return decodeEntities(s)
  let out = ""
  let last = 0
  while (at !== -1) {
    out += decodeEntities(s.slice(last, at))
    const end = s.indexOf(CDATA_END, at + 9)
    if (end === -1) return decodeEntities(s)
    out += s.slice(at + 9, end)
    last = end + 3
    at = s.indexOf(CDATA_START, last)
  }
  return out + decodeEntities(s.slice(last))
}

/** XML's end-of-line handling: `\r\n` and a lone `\r` are read as `\n`. */
const lineEnds = (s: string): string => (s.includes("\r") ? s.replace(/\r\n?/g, "\n") : s)

/** An element's text from its raw inner markup (see the module's rules); blank is `undefined`. */
export const text = (rawMarkup: string | undefined): string | undefined => {
  if (rawMarkup === undefined || rawMarkup === "") return undefined
  const raw = lineEnds(rawMarkup)
  const value = (raw.includes("<") ? decodeOutsideCdata(stripComments(raw)) : decodeEntities(raw)).trim()
  return value === "" ? undefined : value
}

const xhtmlDiv = /^\s*<(?:([A-Za-z][\w.-]*):)?div(?:\s[^>]*)?>([\s\S]*)<\/(?:([A-Za-z][\w.-]*):)?div\s*>\s*$/
const cdataSection = /<!\[CDATA\[([\s\S]*?)\]\]>/g

/** The inner markup of a lone wrapping `<div>` (its prefix dropped from inner tags), else `undefined`. */
const unwrapXhtmlDiv = (markup: string): string | undefined => {
  const match = xhtmlDiv.exec(markup)
  if (match === null || match[1] !== match[3]) return undefined
  const prefix = match[1]
  const inner = match[2]!
  // The match must be one div: `<div>a</div><div>b</div>` is two, so the inner tags must stay balanced.
  const tags = new RegExp(`<(/?)${prefix === undefined ? "" : `${prefix.replace(/\./g, "\\.")}:`}div[\\s/>]`, "g")
  let depth = 0
  for (const tag of inner.matchAll(tags)) {
    depth += tag[1] === "/" ? -1 : 1
    if (depth < 0) return undefined
  }
  if (depth !== 0) return undefined
  return prefix === undefined ? inner : inner.replace(new RegExp(`(</?)${prefix.replace(/\./g, "\\.")}:`, "g"), "$1")
}

/**
 * An Atom text construct (`title`, `summary`, `content`): `type="xhtml"` keeps the markup inside its
 * wrapping `<div>` verbatim, other types are {@link text}.
 */
export const typedText = (rawMarkup: string | undefined, type: string | undefined): string | undefined => {
  if (rawMarkup === undefined) return undefined
  const raw = lineEnds(rawMarkup)
  if (type !== "xhtml" && type !== "application/xhtml+xml") return text(raw)
  const escaped = raw.replace(cdataSection, (_, content: string) =>
    content.replace(/&/g, "&amp;").replace(/</g, "&lt;")
  )
  const unwrapped = unwrapXhtmlDiv(escaped)
  if (unwrapped !== undefined) return unwrapped.trim() || undefined
  if (/^\s*<(?:[A-Za-z][\w.-]*:)?div[\s/>]/.test(escaped)) return escaped.trim() || undefined
  return text(raw)
}

// Plain objects rather than Maps: items share their few keys' hidden classes, and a Map per item was 5% of
// a 20,000-item read in the profile.
const newNode = (own: Readonly<Record<string, string>>): XmlNode => ({
  raw: {},
  attributes: {},
  links: [],
  people: [],
  own
})

const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({})

/** Reads a feed document (see the module's rules). Throws {@link FeedXmlError}. */
export const read = (body: string): XmlFeed => {
  /** Document prefix → canonical prefix, from `xmlns:` declarations; the first declaration wins. */
  const prefixes = new Map<string, string>()
  const canonicalNames = new Map<string, string>()
  /** The format's own namespace: its elements are named without a prefix. */
  let primary = ""
  const canonical = (name: string): string => {
    let known = canonicalNames.get(name)
    if (known !== undefined) return known
    const lower = name.toLowerCase()
    const colon = lower.indexOf(":")
    if (colon === -1) known = lower
    else {
      const prefix = lower.slice(0, colon)
      const resolved = prefix === "xml" ? "xml" : (prefixes.get(prefix) ?? prefix)
      known = resolved === primary ? lower.slice(colon + 1) : `${resolved}:${lower.slice(colon + 1)}`
    }
    canonicalNames.set(name, known)
    return known
  }

  let format: XmlFormat | undefined
  let channel: XmlNode | undefined
  const entries: Array<XmlNode> = []

  // Open elements: canonical names (a closing tag matches by its canonical name), where their content starts.
  const names: Array<string> = []
  const contentStarts: Array<number> = []
  /** The node collecting its children's values (an item, or the channel), and its depth in `names`. */
  let node: XmlNode | undefined
  let nodeDepth = -1
  let person: Map<string, string> | undefined
  /** Where the channel (the Atom root) is open, -1 once it closed. */
  let channelDepth = -1
  const openChannel = (own: Readonly<Record<string, string>>, depth: number) => {
    channel = newNode(own)
    node = channel
    nodeDepth = depth
    channelDepth = depth
  }

  // The tag being opened.
  let tagName = ""
  const attributeNames: Array<string> = []
  const attributeValues: Array<string> = []
  let attributeName = ""
  let attributeValue = ""

  const opened = (contentStart: number, selfClosing: boolean) => {
    const depth = names.length
    let own = NO_ATTRIBUTES
    if (attributeNames.length > 0) {
      // Declarations first: an element may declare the prefix it is named with.
      for (let i = 0; i < attributeNames.length; i++) {
        const a = attributeNames[i]!.toLowerCase()
        if (a.startsWith("xmlns:")) {
          const prefix = a.slice(6)
          if (!prefixes.has(prefix)) {
            prefixes.set(prefix, namespaces.get(attributeValues[i]!.trim().toLowerCase()) ?? prefix)
            canonicalNames.clear()
          }
        }
      }
      const record: Record<string, string> = {}
      for (let i = 0; i < attributeNames.length; i++) {
        const key = canonical(attributeNames[i]!)
        if (!(key in record)) record[key] = decodeEntities(attributeValues[i]!).trim()
      }
      own = record
      attributeNames.length = 0
      attributeValues.length = 0
    }
    let name = canonical(tagName)
    const parent = names[depth - 1]
    if (depth === 0 && format === undefined) {
      if (name === "rss") format = "rss"
      else if (name === "feed" || name === "atom:feed") format = "atom"
      else if (name === "rdf:rdf") format = "rdf"
      else throw new FeedXmlError(`the root element is <${tagName}>, not <rss>, <feed> or <rdf:RDF>`)
      primary = format === "atom" ? "atom" : format === "rdf" ? "rss" : ""
      canonicalNames.clear()
      // Named again under the format's own namespace, as its closing tag will be (`a:feed` is `feed`).
      name = canonical(tagName)
      if (format === "atom") openChannel(own, 0)
    } else if (
      (format === "rss" && name === "item" && depth === 2 && parent === "channel") ||
      (format === "atom" && name === "entry" && depth === 1) ||
      (format === "rdf" && name === "item" && depth === 1)
    ) {
      node = newNode(own)
      nodeDepth = depth
      person = undefined
      entries.push(node)
    } else if ((format === "rss" || format === "rdf") && name === "channel" && depth === 1 && channel === undefined) {
      openChannel(own, 1)
    } else if (node !== undefined && depth === nodeDepth + 1) {
      if (own !== NO_ATTRIBUTES && node.attributes[name] === undefined) node.attributes[name] = own
      if (name === "link" || name === "atom:link") node.links.push({ name, attributes: own })
      if (name === "author" && format === "atom") {
        person = new Map()
        node.people.push(person)
      }
    }
    names.push(name)
    contentStarts.push(contentStart)
    if (selfClosing) closed(depth, contentStart)
  }

  /** Closes the element at `depth` (and any left open inside it); `end` is where its closing tag starts. */
  const closed = (depth: number, end: number) => {
    while (names.length > depth + 1) closed(names.length - 1, end)
    const name = names[depth]!
    const start = contentStarts[depth]!
    if (node !== undefined) {
      if (depth === nodeDepth + 1) {
        if (node.raw[name] === undefined) node.raw[name] = end > start ? body.slice(start, end) : ""
        if (name === "author") person = undefined
      } else if (person !== undefined && depth === nodeDepth + 2 && names[depth - 1] === "author") {
        if (!person.has(name)) person.set(name, end > start ? body.slice(start, end) : "")
      } else if (depth === nodeDepth) {
        // An item ends: back to its channel while that is open (RSS, Atom; RDF's items follow it).
        if (node === channel) channelDepth = -1
        node = node !== channel && channelDepth !== -1 ? channel : undefined
        nodeDepth = node === undefined ? -1 : channelDepth
      }
    }
    names.length = depth
    contentStarts.length = depth
  }

  const tokenizer = new Tokenizer(
    { xmlMode: true, decodeEntities: false },
    {
      onopentagname(start, end) {
        tagName = body.slice(start, end)
      },
      onattribname(start, end) {
        attributeName = body.slice(start, end)
        attributeValue = ""
      },
      onattribdata(start, end) {
        attributeValue += body.slice(start, end)
      },
      onattribentity() {},
      onattribend() {
        attributeNames.push(attributeName)
        attributeValues.push(attributeValue)
      },
      onopentagend(end) {
        opened(end + 1, false)
      },
      onselfclosingtag(end) {
        opened(end + 1, true)
      },
      onclosetag(start, end) {
        const name = canonical(body.slice(start, end))
        const depth = names.lastIndexOf(name)
        if (depth !== -1) closed(depth, body.lastIndexOf("<", start))
        // A closing tag that matches no open element is ignored, as feedsmith (fast-xml-parser) did: real
        // feeds have them (a fixture closes `</media:content>` twice).
      },
      ontext() {},
      ontextentity() {},
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend() {}
    }
  )
  tokenizer.write(body)
  tokenizer.end()
  if (format === undefined) throw new FeedXmlError("the document has no root element")
  if (names.length > 0) throw new FeedXmlError(`the document ends inside <${names.at(-1)}> (truncated?)`)
  return { format, channel, entries }
}
