/**
 * Issue 35 §6: a feed's language is the site's default, not each comment's. Items are sent with their
 * own language only (as the API's 2-letter ISO 639-1 code), the feed's only when the config says
 * `language: feed`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Connector } from "@warden/connector"
import { Effect } from "effect"
import { connector, LanguageCode } from "../src/index.ts"
import { firstPolls } from "./fixtures/Corpus.ts"
import * as FeedServer from "./fixtures/FeedServer.ts"
import { collect, fast, text, upserts } from "./fixtures/run.ts"

/**
 * A comments feed as the vorb.de blog's template writes it (an Atom feed per site, `xml:lang` on
 * `<feed>`, one entry per comment, the commenter's website as `<uri>`), with readers writing in
 * French, German and Spanish; one entry carries its own `xml:lang`, as a CMS that knows it writes it.
 */
const atomComments = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
  <title>example.org: Comments</title>
  <updated>2025-03-02T10:00:00.000Z</updated>
  <id>http://example.org/log/comment-feed.xml</id>
  <author><name>Site Owner</name></author>
  <link href="http://example.org/log/"/>
  <link rel="self" href="http://example.org/log/comment-feed.xml"/>
  <entry>
    <title>Comment on /log/budget by Marie</title>
    <link href="http://example.org/log/budget#c4"/>
    <id>http://example.org/log/comments?id=c4</id>
    <updated>2025-03-02T10:00:00.000Z</updated>
    <author><name>Marie</name><uri>https://marie.example.fr/</uri></author>
    <content type="html">Je ne suis pas d'accord avec cet article.</content>
  </entry>
  <entry>
    <title>Comment on /log/budget by Jonas</title>
    <link href="http://example.org/log/budget#c3"/>
    <id>http://example.org/log/comments?id=c3</id>
    <updated>2025-03-02T09:00:00.000Z</updated>
    <author><name>Jonas</name></author>
    <content type="html">Das sehe ich genauso, danke für den Artikel.</content>
  </entry>
  <entry xml:lang="es-ES">
    <title>Comment on /log/budget by Lucía</title>
    <link href="http://example.org/log/budget#c2"/>
    <id>http://example.org/log/comments?id=c2</id>
    <updated>2025-03-02T08:00:00.000Z</updated>
    <author><name>Lucía</name></author>
    <content type="html">Muy buen artículo, gracias.</content>
  </entry>
</feed>`

/** An RSS 2.0 comments feed with the site's `<language>en-us</language>`; one item says `dc:language`. */
const rssComments = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
  <title>Comments on: Budget</title>
  <link>https://example.com/budget/</link>
  <description>Comments</description>
  <language>en-us</language>
  <item>
    <title>By: Chloé</title>
    <link>https://example.com/budget/#comment-2</link>
    <dc:creator><![CDATA[Chloé]]></dc:creator>
    <guid isPermaLink="false">https://example.com/?p=1#comment-2</guid>
    <description><![CDATA[C'est une honte, franchement.]]></description>
  </item>
  <item>
    <title>By: Anna</title>
    <link>https://example.com/budget/#comment-1</link>
    <dc:creator><![CDATA[Anna]]></dc:creator>
    <dc:language>de-AT</dc:language>
    <guid isPermaLink="false">https://example.com/?p=1#comment-1</guid>
    <description><![CDATA[Ein sehr guter Beitrag.]]></description>
  </item>
</channel>
</rss>`

/** A JSON Feed 1.1 with the feed's `language` and one item's own. */
const jsonComments = JSON.stringify({
  version: "https://jsonfeed.org/version/1.1",
  title: "Comments",
  language: "en-US",
  items: [
    { id: "j2", content_text: "Qué vergüenza.", language: "es-MX", authors: [{ name: "Pilar" }] },
    { id: "j1", content_text: "Quelle honte.", authors: [{ name: "Paul" }] }
  ]
})

/** The language each event was sent with, by its text's first word. */
const languages = (events: ReturnType<typeof upserts>) =>
  Object.fromEntries(events.map((e) => [text(e).split(/\s/)[0], e.language]))

const serveAll = Effect.gen(function* () {
  return yield* FeedServer.make((req, res) => {
    if (req.url === "/atom") FeedServer.document(() => atomComments, { contentType: "application/atom+xml" })(req, res)
    else if (req.url === "/rss") FeedServer.document(() => rssComments)(req, res)
    else FeedServer.document(() => jsonComments, { contentType: "application/feed+json" })(req, res)
  })
})

describe("the language an item is sent with", () => {
  it("is the ISO 639-1 code of a language tag (2 letters), or none", () => {
    const cases: ReadonlyArray<[string | undefined, string | undefined]> = [
      ["en", "en"],
      ["en-us", "en"],
      ["en-GB", "en"],
      ["fr_FR", "fr"],
      ["EN", "en"],
      [" de-AT ", "de"],
      ["zh-Hant-TW", "zh"],
      ["eng", undefined],
      ["english", undefined],
      ["x-klingon", undefined],
      ["i-default", undefined],
      ["", undefined],
      [undefined, undefined]
    ]
    for (const [tag, code] of cases) assert.strictEqual(LanguageCode.isoCode(tag), code, String(tag))
  })

  it.live("is the item's own: a feed's xml:lang or <language> is not sent as every comment's language", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serveAll
        const events = yield* collect(
          { feeds: [server.url("/atom"), server.url("/rss"), server.url("/json")], content: "comments", ...fast },
          (es) => upserts(es).length >= 7
        )
        assert.deepStrictEqual(languages(upserts(events)), {
          // Atom, <feed xml:lang="en">: only the entry that says xml:lang="es-ES" has a language.
          Je: undefined,
          Das: undefined,
          Muy: "es",
          // RSS, <language>en-us</language>: only the item with dc:language.
          "C'est": undefined,
          Ein: "de",
          // JSON Feed, language "en-US": only the item's own.
          Qué: "es",
          Quelle: undefined
        } as Record<string, string | undefined>)
      })
    )
  )

  it.live("falls back to the feed's with `language: feed`, for the source or one feed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serveAll
        const all = yield* collect(
          { feeds: [server.url("/atom"), server.url("/rss")], content: "comments", language: "feed", ...fast },
          (es) => upserts(es).length >= 5
        )
        assert.deepStrictEqual(languages(upserts(all)), { Je: "en", Das: "en", Muy: "es", "C'est": "en", Ein: "de" })
        const one = yield* collect(
          { feeds: [{ url: server.url("/atom"), language: "feed" }, server.url("/rss")], content: "comments", ...fast },
          (es) => upserts(es).length >= 5
        )
        assert.deepStrictEqual(languages(upserts(one)), {
          Je: "en",
          Das: "en",
          Muy: "es",
          "C'est": undefined,
          Ein: "de"
        } as Record<string, string | undefined>)
      })
    )
  )

  it.effect("`language` is `item` unless the config says otherwise; another value is refused, named", () =>
    Effect.gen(function* () {
      const config = yield* Connector.decodeConfig(connector, { feeds: ["https://example.com/feed.xml"] })
      assert.strictEqual(config.language, "item")
      const error = yield* Effect.flip(
        Connector.decodeConfig(connector, { feeds: ["https://example.com/feed.xml"], language: "en" })
      )
      assert.include(error.message, "language")
    })
  )

  it("over every fixture feed (real feeds): only items that say their language have one, 2 letters", () => {
    const own = firstPolls()
    const withLanguage = own.flatMap((p) => p.events.filter((e) => e.language !== undefined).map(() => p.file))
    // Of the 45 feeds, only the two feedparser Atom examples give an item its language (xml:lang="en-US"
    // on <content>); 30 feeds say the site's (`en`, `en-us`, `en-GB`...), and that is not sent.
    assert.deepStrictEqual([...new Set(withLanguage)].sort(), [
      "examples/18433b5bc1827086a07ba71f18dc9baa.xml",
      "examples/3226e0f37e21861fa341d4326fa864da.xml"
    ])
    assert.isTrue(own.flatMap((p) => p.events).every((e) => e.language === undefined || e.language === "en"))
    assert.strictEqual(own.filter((p) => p.feed.language !== undefined).length, 30)

    // With `language: feed`, the feed's, as 2 letters (no fixture item's own language differs from its feed's).
    const feed = firstPolls("feed")
    for (const p of feed) {
      for (const e of p.events) assert.strictEqual(e.language, LanguageCode.isoCode(p.feed.language), p.file)
    }
    // The Guardian says `en-gb`: its items go as `en`.
    assert.strictEqual(feed.find((p) => p.file.includes("2d055498ae801efb0bf0b6124009cac2"))!.events[0]!.language, "en")
  })
})
