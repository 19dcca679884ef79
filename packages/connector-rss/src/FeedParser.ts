/**
 * Parses RSS 0.9x/2.0, Atom (0.3 and 1.0), RDF/RSS 1.0 and JSON Feed documents into one normalised
 * item shape. XML documents are read in one pass by `FeedXml` (no document tree), JSON Feed with `JSON.parse`;
 * the package README says why this replaced feedsmith.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as FeedXml from "./FeedXml.ts"

/** The feed formats understood. */
export type Format = "rss" | "atom" | "rdf" | "json"

/**
 * Who wrote an item, as the feed says: a name, and where the format has them, a URI (Atom `uri`, JSON
 * Feed `url`; absolute) and an email address (Atom `email`, RSS `author`'s `email (Name)`).
 */
export interface FeedAuthor {
  readonly name: string
  readonly uri?: string | undefined
  readonly email?: string | undefined
}

/** One feed item, normalised across formats. Strings are raw (may hold HTML); URLs are absolute. */
export interface FeedItem {
  readonly guid?: string | undefined
  readonly link?: string | undefined
  readonly title?: string | undefined
  readonly summary?: string | undefined
  readonly content?: string | undefined
  readonly commentsUrl?: string | undefined
  readonly publishedAt?: string | undefined
  readonly author?: FeedAuthor | undefined
  /**
   * The item's own language, as written (`en-US`): `dc:language` on an RSS or RDF item, `xml:lang` on an
   * Atom entry's content (or summary, without content) or on the entry, JSON Feed's item `language`.
   * Never the feed's: that is {@link Feed.language}.
   */
  readonly language?: string | undefined
}

/** A parsed feed. */
export interface Feed {
  readonly format: Format
  readonly title?: string | undefined
  /**
   * The feed's language, as written: RSS `<language>`, Atom `xml:lang` on `<feed>`, RDF `dc:language`
   * on the channel, JSON Feed's `language`. The site's default, not each item's.
   */
  readonly language?: string | undefined
  readonly items: ReadonlyArray<FeedItem>
}

/** The document is not a feed this parser understands, or is malformed. */
export class FeedParseError extends Schema.TaggedError<FeedParseError>()("FeedParseError", {
  message: Schema.String
}) {}

const isJson = (body: string): boolean => /^\s*\{/.test(body)

const absolute = (href: string | undefined, base: string | undefined): string | undefined => {
  if (href === undefined) return undefined
  try {
    return new URL(href.trim(), base).toString()
  } catch {
    return undefined
  }
}

const isoDate = (...candidates: ReadonlyArray<string | undefined>): string | undefined => {
  for (const c of candidates) {
    if (c === undefined) continue
    const t = Date.parse(c)
    if (!Number.isNaN(t)) return new Date(t).toISOString()
  }
  return undefined
}

/** `lawyer@boyer.net (Lawyer Boyer)` (RSS 2.0's form) or a bare address. */
const emailFirst = /^(?:mailto:)?([^\s()<>@]+@[^\s()<>@]+)\s*(?:\((.*)\))?$/su
/** `Lawyer Boyer <lawyer@boyer.net>`, `Simon St.Laurent (mailto:simonstl@simonstl.com)`. */
const nameFirst = /^(.*?)\s*[<(](?:mailto:)?([^\s()<>@]+@[^\s()<>@]+)[>)]$/su

/**
 * An author written as one string (RSS `author`, `dc:creator`, `itunes:author`): a name, or an email
 * address with the name in parentheses (`lawyer@boyer.net (Lawyer Boyer)`, RSS 2.0's form), or a name
 * with the address in angle brackets or parentheses (`Lawyer Boyer <lawyer@boyer.net>`,
 * `Simon St.Laurent (mailto:simonstl@simonstl.com)`). The name is the address when there is no other.
 */
export const namedAuthor = (value: string | undefined): FeedAuthor | undefined => {
  if (value === undefined) return undefined
  const first = emailFirst.exec(value)
  if (first !== null) return { name: first[2]?.trim() || first[1]!, email: first[1]! }
  const second = nameFirst.exec(value)
  if (second !== null) return { name: second[1]!.trim() || second[2]!, email: second[2]! }
  return { name: value }
}

/** A child's text (first occurrence). */
const field = (node: FeedXml.XmlNode, key: string): string | undefined => FeedXml.text(node.raw[key])

/** An Atom text construct: `type="xhtml"` keeps its markup. */
const construct = (node: FeedXml.XmlNode, key: string): string | undefined =>
  FeedXml.typedText(node.raw[key], node.attributes[key]?.type)

const rssItem = (i: FeedXml.XmlNode, base: string | undefined): FeedItem => {
  const guid = field(i, "guid")
  const atomLink = i.links.find((l) => l.name === "atom:link")?.attributes.href
  const link = absolute(field(i, "link") ?? (atomLink === "" ? undefined : atomLink), base)
  const permaLink = i.attributes.guid?.ispermalink?.toLowerCase() !== "false"
  return {
    guid,
    link: link ?? (permaLink && guid?.startsWith("http") ? guid : undefined),
    title: field(i, "title") ?? field(i, "dc:title"),
    summary: field(i, "description") ?? field(i, "dc:description") ?? field(i, "itunes:summary"),
    content: field(i, "content:encoded"),
    commentsUrl: absolute(field(i, "wfw:commentrss") ?? field(i, "comments"), base),
    publishedAt: isoDate(
      field(i, "pubdate"),
      field(i, "dc:date"),
      field(i, "atom:published"),
      field(i, "atom:updated")
    ),
    author:
      namedAuthor(field(i, "author")) ?? namedAuthor(field(i, "dc:creator")) ?? namedAuthor(field(i, "itunes:author")),
    language: field(i, "dc:language")
  }
}

/** An Atom person construct: `name`, `uri` (0.3: `url`, resolved against the entry's base) and `email`. */
const atomPerson = (people: ReadonlyArray<Map<string, string>>, base: string | undefined): FeedAuthor | undefined => {
  const p = people[0]
  if (p === undefined) return undefined
  const email = FeedXml.text(p.get("email"))
  const personName = FeedXml.text(p.get("name")) ?? email
  return personName === undefined
    ? undefined
    : { name: personName, uri: absolute(FeedXml.text(p.get("uri")) ?? FeedXml.text(p.get("url")), base), email }
}

/**
 * The language of an entry's text: `xml:lang` on its content (or, when it has none, its summary), else
 * on the entry itself (XML's inheritance, stopping short of the feed's).
 */
const atomLanguage = (e: FeedXml.XmlNode): string | undefined =>
  e.attributes[e.raw.content !== undefined ? "content" : "summary"]?.["xml:lang"] || e.own["xml:lang"] || undefined

const atomLink = (links: FeedXml.XmlNode["links"], base: string | undefined): string | undefined => {
  const own = links.filter((l) => l.name === "link")
  if (own.length === 0) return undefined
  const alternate = own.find((l) => l.attributes.rel === undefined || l.attributes.rel === "alternate") ?? own[0]
  return absolute(alternate?.attributes.href || undefined, base)
}

const atomItem = (e: FeedXml.XmlNode, base: string | undefined): FeedItem => {
  const itemBase = absolute(e.own["xml:base"] || undefined, base) ?? base
  const replies = e.links.find((l) => l.name === "link" && l.attributes.rel === "replies")?.attributes.href
  return {
    guid: field(e, "id"),
    link: atomLink(e.links, itemBase),
    title: construct(e, "title"),
    summary: construct(e, "summary"),
    content: construct(e, "content"),
    commentsUrl: absolute(replies || undefined, itemBase),
    publishedAt: isoDate(
      field(e, "published"),
      field(e, "updated"),
      field(e, "issued"),
      field(e, "modified"),
      field(e, "created")
    ),
    author: atomPerson(e.people, itemBase) ?? namedAuthor(field(e, "dc:creator")),
    language: atomLanguage(e)
  }
}

const rdfItem = (i: FeedXml.XmlNode, base: string | undefined): FeedItem => ({
  guid: i.own["rdf:about"] || undefined,
  link: absolute(field(i, "link"), base),
  title: field(i, "title") ?? field(i, "dc:title"),
  summary: field(i, "description") ?? field(i, "dc:description"),
  content: field(i, "content:encoded"),
  commentsUrl: undefined,
  publishedAt: isoDate(field(i, "dc:date"), field(i, "dcterms:modified")),
  author: namedAuthor(field(i, "dc:creator")),
  language: field(i, "dc:language")
})

type Json = Record<string, unknown>

/** A JSON Feed value: a string as it is (trimmed; JSON has no entities to decode), or a number. */
const jsonText = (v: unknown): string | undefined =>
  typeof v === "string" ? v.trim() || undefined : typeof v === "number" ? String(v) : undefined

const jsonPerson = (p: unknown, base: string | undefined): FeedAuthor | undefined => {
  if (typeof p !== "object" || p === null) return undefined
  const o = p as Json
  const personName = jsonText(o.name)
  return personName === undefined ? undefined : { name: personName, uri: absolute(jsonText(o.url), base) }
}

const jsonItem = (i: Json, base: string | undefined): FeedItem => ({
  guid: jsonText(i.id),
  link: absolute(jsonText(i.url) ?? jsonText(i.external_url), base),
  title: jsonText(i.title),
  summary: jsonText(i.summary),
  content: jsonText(i.content_html) ?? jsonText(i.content_text),
  commentsUrl: undefined,
  publishedAt: isoDate(jsonText(i.date_published), jsonText(i.date_modified)),
  author: jsonPerson(Array.isArray(i.authors) ? i.authors[0] : undefined, base) ?? jsonPerson(i.author, base),
  language: jsonText(i.language)
})

const parseJson = (body: string, base: string | undefined): Feed => {
  const doc: unknown = JSON.parse(body)
  const feed = (typeof doc === "object" && doc !== null ? doc : {}) as Json
  if (typeof feed.version !== "string" || !feed.version.includes("jsonfeed.org/version/")) {
    throw new Error("a JSON document without a JSON Feed `version` (https://jsonfeed.org/version/1.1)")
  }
  const items = Array.isArray(feed.items) ? feed.items : []
  return {
    format: "json",
    title: jsonText(feed.title),
    language: jsonText(feed.language),
    items: items.filter((i): i is Json => typeof i === "object" && i !== null).map((i) => jsonItem(i, base))
  }
}

/**
 * Parses a feed document; `baseUrl` (the feed's URL) resolves relative links. Throws on a document that
 * is not a feed or is malformed; {@link parse} turns that into a {@link FeedParseError}.
 */
export const parseSync = (body: string, baseUrl?: string): Feed => {
  if (isJson(body)) return parseJson(body, baseUrl)
  const doc = FeedXml.read(body)
  const channel = doc.channel
  switch (doc.format) {
    case "rss":
      return {
        format: "rss",
        title: channel && field(channel, "title"),
        language: channel && field(channel, "language"),
        items: doc.entries.map((i) => rssItem(i, baseUrl))
      }
    case "atom": {
      const base = absolute(channel?.own["xml:base"] || undefined, baseUrl) ?? baseUrl
      return {
        format: "atom",
        title: channel && construct(channel, "title"),
        language: channel?.own["xml:lang"] || undefined,
        items: doc.entries.map((e) => atomItem(e, base))
      }
    }
    case "rdf":
      return {
        format: "rdf",
        title: channel && field(channel, "title"),
        language: channel && field(channel, "dc:language"),
        items: doc.entries.map((i) => rdfItem(i, baseUrl))
      }
  }
}

/** {@link parseSync} as an Effect, failing with {@link FeedParseError}. */
export const parse = (body: string, baseUrl?: string): Effect.Effect<Feed, FeedParseError> =>
  Effect.try({
    try: () => parseSync(body, baseUrl),
    catch: (error) =>
      new FeedParseError({
        message:
          `not a valid RSS, Atom, RDF or JSON feed: ${error instanceof Error ? error.message : String(error)}`.slice(
            0,
            500
          )
      })
  })
