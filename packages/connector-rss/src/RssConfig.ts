/**
 * The config of an RSS source, decoded from the user's YAML:
 *
 * ```yaml
 * sources:
 *   - type: rss
 *     feeds: [https://example.com/feed.xml, { url: https://blog.example.com/atom, id: blog, content: summary }]
 *     pollInterval: 5 minutes
 * ```
 *
 * @since 0.1.0
 */
import { Backoff, ConfigDuration } from "@warden/connector"
import { Effect, Schema } from "effect"

/** An absolute http(s) URL. */
export const FeedUrl = Schema.String.check(Schema.isPattern(/^https?:\/\/[^\s/$.?#][^\s]*$/iu)).annotate({
  description: "An absolute http:// or https:// feed URL"
})

/** A stable name of a feed in references (`rss:<id>/...`); default: a hash of the URL. */
export const FeedId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9._-]{1,64}$/u)).annotate({
  description: "Letters, digits, '.', '_' or '-', at most 64: the feed's name in references"
})

/**
 * Which field becomes the content to analyse:
 * - `auto` (default): the title and the full content (or the summary), as "title\n\nbody";
 * - `title`, `summary`, `content` (full content, falling back to the summary);
 * - `comments`: the feed is a comments feed (e.g. WordPress `/comments/feed`): each item is one
 *   comment, its body is the content and the article it comments on goes to `post`.
 * An item whose chosen field is empty falls back to any non-empty one.
 */
export const ContentField = Schema.Literals(["auto", "title", "summary", "content", "comments"])
/** @see {@link ContentField} */
export type ContentField = typeof ContentField.Type

/**
 * Which language hint an item is sent with (the API's `language`, ISO 639-1: `en-US` is sent as `en`,
 * a tag without a 2-letter code is dropped):
 * - `item` (default): the item's own only (`xml:lang` on an Atom entry or its content, `dc:language` on an
 *   RSS or RDF item, a JSON Feed item's `language`). An item without one is sent without a hint and
 *   the API detects its language. A feed's language is the site's default, not each comment's: a
 *   French comment under an English article is French;
 * - `feed`: the item's own, else the feed's (RSS `<language>`, Atom `xml:lang` on `<feed>`, JSON Feed
 *   `language`), for a feed known to be written in one language.
 */
export const LanguageSource = Schema.Literals(["item", "feed"])
/** @see {@link LanguageSource} */
export type LanguageSource = typeof LanguageSource.Type

/** One feed, long form. */
export const FeedEntry = Schema.Struct({
  url: FeedUrl,
  id: Schema.optionalKey(FeedId),
  content: Schema.optionalKey(ContentField),
  language: Schema.optionalKey(LanguageSource)
})

const duration = ConfigDuration.withDefault
const int = (min: number, max: number, value: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max })).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(value))
  )

/** The whole RSS source config; every field but `feeds` has a default. */
export const Config = Schema.Struct({
  /** Feed URLs, or `{ url, id?, content?, language? }` entries. */
  feeds: Schema.Array(Schema.Union([FeedUrl, FeedEntry]))
    .check(Schema.isMinLength(1))
    .annotate({ description: "Feed URLs, or `{ url, id?, content?, language? }` entries." }),
  /** Time between two polls of one feed (default 5 minutes). */
  pollInterval: duration("5 minutes", "50 millis").annotate({
    description: "Time between two polls of one feed (default 5 minutes)."
  }),
  /** Default content field of every feed (default `auto`). */
  content: ContentField.pipe(Schema.withDecodingDefaultKey(Effect.succeed("auto" as const))).annotate({
    description: "Default content field of every feed (default `auto`)."
  }),
  /** Default language hint of every feed's items (default `item`: an item's own language only). */
  language: LanguageSource.pipe(Schema.withDecodingDefaultKey(Effect.succeed("item" as const))).annotate({
    description:
      "Language hint of every feed's items: `item` (default) sends an item's own language only (Atom `xml:lang` on the entry, `dc:language`, JSON Feed item `language`); `feed` falls back to the feed's language (RSS `<language>`, Atom `xml:lang` on `<feed>`), for a feed written in one language."
  }),
  /** At most this many items are emitted per poll of a feed; the rest come with the next polls (default 100). */
  maxItemsPerPoll: int(1, 100_000, 100).annotate({
    description:
      "At most this many items are emitted per poll of a feed; the rest come with the next polls (default 100)."
  }),
  /** How many items per feed are remembered for dedupe and edit detection (default 1000; never fewer than the feed holds). */
  retain: int(1, 1_000_000, 1000).annotate({
    description:
      "How many items per feed are remembered for dedupe and edit detection (default 1000; never fewer than the feed holds)."
  }),
  /** Timeout of one fetch, redirects and body included (default 30 seconds). */
  timeout: duration("30 seconds", "100 millis").annotate({
    description: "Timeout of one fetch, redirects and body included (default 30 seconds)."
  }),
  /** Size cap of one answer after decompression (default 10 MiB). */
  maxBytes: int(1024, 1024 * 1024 * 1024, 10 * 1024 * 1024).annotate({
    description: "Size cap of one answer after decompression (default 10 MiB)."
  }),
  /** Redirects followed per fetch (default 5). */
  maxRedirects: int(0, 20, 5).annotate({ description: "Redirects followed per fetch (default 5)." }),
  /** Backoff after a failed poll: `initial` doubles per failure up to `max`; a `Retry-After` wins when longer. */
  retry: Backoff.Settings({ initial: "10 seconds", max: "30 minutes" }),
  /** The User-Agent sent. */
  userAgent: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed("Warden-RSS/0.1"))).annotate({
    description: "The User-Agent sent."
  }),
  /** Extra request headers, e.g. `authorization` for a private feed; kept Redacted (never logged). */
  headers: Schema.Record(Schema.String, Schema.RedactedFromValue(Schema.String)).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed({}))
  )
})
/** The decoded config. */
export type Config = typeof Config.Type
/** The config as a user writes it (durations as strings, defaults optional). */
export type ConfigInput = typeof Config.Encoded
