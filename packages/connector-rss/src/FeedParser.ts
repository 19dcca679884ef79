/**
 * Parses RSS 0.9x/2.0, Atom (0.3 and 1.0), RDF/RSS 1.0 and JSON Feed documents into one normalised
 * item shape, with feedsmith (chosen by measurement: see the package README).
 *
 * @since 0.1.0
 */
import { parseFeed } from "feedsmith"
import { Effect, Schema } from "effect"

/** The feed formats understood. */
export type Format = "rss" | "atom" | "rdf" | "json"

/** One feed item, normalised across formats. Strings are raw (may hold HTML); URLs are absolute. */
export interface FeedItem {
  readonly guid?: string | undefined
  readonly link?: string | undefined
  readonly title?: string | undefined
  readonly summary?: string | undefined
  readonly content?: string | undefined
  readonly commentsUrl?: string | undefined
  readonly publishedAt?: string | undefined
  readonly author?: { readonly name: string; readonly uri?: string | undefined } | undefined
  readonly language?: string | undefined
}

/** A parsed feed. */
export interface Feed {
  readonly format: Format
  readonly title?: string | undefined
  readonly language?: string | undefined
  readonly items: ReadonlyArray<FeedItem>
}

/** The document is not a feed this parser understands, or is malformed. */
export class FeedParseError extends Schema.TaggedError<FeedParseError>()("FeedParseError", {
  message: Schema.String
}) {}

/** The raw parser alone (feedsmith's `parseFeed`): the benchmark's baseline. */
export const parseRaw = (body: string): unknown => parseFeed(body)

type Loose = Record<string, any>

const str = (v: unknown): string | undefined => {
  if (typeof v === "string") return v.trim() === "" ? undefined : v
  if (typeof v === "number") return String(v)
  if (typeof v === "object" && v !== null) {
    const value = (v as Loose).value ?? (v as Loose)["#text"]
    return typeof value === "string" && value.trim() !== "" ? value : undefined
  }
  return undefined
}

const absolute = (href: string | undefined, base: string | undefined): string | undefined => {
  if (href === undefined) return undefined
  try {
    return new URL(href.trim(), base).toString()
  } catch {
    return undefined
  }
}

const isoDate = (...candidates: ReadonlyArray<unknown>): string | undefined => {
  for (const c of candidates) {
    const s = str(c)
    if (s === undefined) continue
    const t = Date.parse(s)
    if (!Number.isNaN(t)) return new Date(t).toISOString()
  }
  return undefined
}

const firstOf = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v)

const person = (p: unknown): FeedItem["author"] => {
  if (typeof p === "string") return p.trim() === "" ? undefined : { name: p.trim() }
  if (typeof p !== "object" || p === null) return undefined
  const o = p as Loose
  const name = str(o.name) ?? str(o.email)
  return name === undefined ? undefined : { name, uri: str(o.uri) ?? str(o.link) ?? str(o.url) }
}

const rssItem = (i: Loose, base: string | undefined): FeedItem => {
  const guid = str(i.guid)
  const link = absolute(str(i.link) ?? str(i.atom?.links?.[0]?.href), base)
  return {
    guid,
    link: link ?? (i.guid?.isPermaLink !== false && guid?.startsWith("http") ? guid : undefined),
    title: str(i.title) ?? str(firstOf(i.dc?.titles)),
    summary: str(i.description) ?? str(firstOf(i.dc?.descriptions)) ?? str(i.itunes?.summary),
    content: str(i.content?.encoded),
    commentsUrl: absolute(str(i.wfw?.commentRss) ?? str(i.comments), base),
    publishedAt: isoDate(i.pubDate, firstOf(i.dc?.dates), i.atom?.published, i.atom?.updated),
    author: person(firstOf(i.authors)) ?? person(firstOf(i.dc?.creators)) ?? person(i.itunes?.author),
    language: str(firstOf(i.dc?.languages))
  }
}

const atomLink = (links: unknown, base: string | undefined): string | undefined => {
  if (!Array.isArray(links)) return undefined
  const alt = links.find((l: Loose) => l.rel === undefined || l.rel === "alternate") ?? links[0]
  return absolute(str(alt?.href), base)
}

const atomItem = (e: Loose, base: string | undefined): FeedItem => {
  const itemBase = absolute(str(e.xml?.base), base) ?? base
  return {
    guid: str(e.id),
    link: atomLink(e.links, itemBase),
    title: str(e.title),
    summary: str(e.summary),
    content: str(e.content),
    commentsUrl: Array.isArray(e.links)
      ? absolute(str(e.links.find((l: Loose) => l.rel === "replies")?.href), itemBase)
      : undefined,
    publishedAt: isoDate(e.published, e.updated, e.issued, e.modified, e.created),
    author: person(firstOf(e.authors)) ?? person(firstOf(e.dc?.creators)),
    language: str(e.xml?.lang)
  }
}

const rdfItem = (i: Loose, base: string | undefined): FeedItem => ({
  guid: str(i.rdf?.about),
  link: absolute(str(i.link), base),
  title: str(i.title) ?? str(firstOf(i.dc?.titles)),
  summary: str(i.description) ?? str(firstOf(i.dc?.descriptions)),
  content: str(i.content?.encoded),
  commentsUrl: undefined,
  publishedAt: isoDate(firstOf(i.dc?.dates), firstOf(i.dcterms?.modifieds)),
  author: person(firstOf(i.dc?.creators)),
  language: str(firstOf(i.dc?.languages))
})

const jsonItem = (i: Loose, base: string | undefined): FeedItem => ({
  guid: str(i.id),
  link: absolute(str(i.url) ?? str(i.external_url), base),
  title: str(i.title),
  summary: str(i.summary),
  content: str(i.content_html) ?? str(i.content_text),
  commentsUrl: undefined,
  publishedAt: isoDate(i.date_published, i.date_modified),
  author: person(firstOf(i.authors)) ?? person(i.author),
  language: str(i.language)
})

/**
 * Parses a feed document; `baseUrl` (the feed's URL) resolves relative links. Never throws: a
 * malformed or unknown document fails with {@link FeedParseError}.
 */
export const parseSync = (body: string, baseUrl?: string): Feed => {
  const parsed = parseFeed(body) as { format: Format; feed: Loose }
  const feed = parsed.feed
  const base = baseUrl
  switch (parsed.format) {
    case "rss":
      return {
        format: "rss",
        title: str(feed.title),
        language: str(feed.language),
        items: (feed.items ?? []).map((i: Loose) => rssItem(i, base))
      }
    case "atom":
      return {
        format: "atom",
        title: str(feed.title),
        language: str(feed.xml?.lang),
        items: (feed.entries ?? []).map((e: Loose) => atomItem(e, absolute(str(feed.xml?.base), base) ?? base))
      }
    case "rdf":
      return {
        format: "rdf",
        title: str(feed.title),
        language: str(firstOf(feed.dc?.languages)),
        items: (feed.items ?? []).map((i: Loose) => rdfItem(i, base))
      }
    case "json":
      return {
        format: "json",
        title: str(feed.title),
        language: str(feed.language),
        items: (feed.items ?? []).map((i: Loose) => jsonItem(i, base))
      }
    default:
      throw new Error(`unsupported feed format ${String((parsed as Loose).format)}`)
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
