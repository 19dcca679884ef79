/**
 * The one-pass reader (`FeedXml`, behind `FeedParser.parseSync`) against the feedsmith mapping it replaced
 * (`fixtures/FeedsmithReference.ts`): every fixture feed, and documents written for the cases the fixtures
 * do not hold, must give the same feed title, language and items, field by field.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import * as FeedParser from "../src/FeedParser.ts"
import { decodeBody } from "../src/FeedFetcher.ts"
import * as FeedXml from "../src/FeedXml.ts"
import { parseWithFeedsmith } from "./fixtures/FeedsmithReference.ts"

const feedsDir = new URL("./fixtures/feeds/", import.meta.url)
const manifest = JSON.parse(readFileSync(new URL("manifest.json", feedsDir), "utf8")) as {
  feeds: ReadonlyArray<{ file: string; feedType: string; original: string }>
}

/** Drops `undefined` fields so that `{ a: undefined }` and `{}` compare equal. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

const sameAsFeedsmith = (body: string, base: string | undefined, what: string) => {
  const expected = plain(parseWithFeedsmith(body, base)) as FeedParser.Feed
  const actual = plain(FeedParser.parseSync(body, base)) as FeedParser.Feed
  assert.strictEqual(actual.format, expected.format, `${what}: format`)
  assert.strictEqual(actual.title, expected.title, `${what}: title`)
  assert.strictEqual(actual.language, expected.language, `${what}: language`)
  assert.strictEqual(actual.items.length, expected.items.length, `${what}: item count`)
  for (const [i, item] of actual.items.entries()) {
    assert.deepStrictEqual(item, expected.items[i], `${what}: item ${i}`)
  }
  return actual
}

describe("FeedParser.parseSync (one pass, no tree) reads what feedsmith read", () => {
  it("on every fixture feed, field by field", () => {
    let items = 0
    for (const feed of manifest.feeds) {
      const body = decodeBody(readFileSync(new URL(feed.file, feedsDir)), undefined)
      items += sameAsFeedsmith(body, feed.original, feed.file).items.length
    }
    // The corpus's 45 feeds hold 1,118 items (README "Choosing the parser"): none may go missing.
    assert.strictEqual(items, 1118)
  })

  const rss = (channel: string, item: string, namespaces = "") =>
    `<?xml version="1.0"?><rss version="2.0" ${namespaces}><channel>${channel}<item>${item}</item></channel></rss>`

  it.each([
    [
      "entities, CDATA and comments in a description",
      rss(
        "<title>T &amp; U</title>",
        "<guid>g1</guid><description><![CDATA[<p>a &amp; b</p>]]> &lt;i&gt;x&lt;/i&gt; &eacute;<!-- hidden --></description>"
      )
    ],
    [
      "unescaped HTML inside a description",
      rss("", "<guid>g2</guid><description>line<br>next <b>bold</b></description>")
    ],
    [
      "a guid that is not a permalink",
      rss("", '<guid isPermaLink="false">http://example.com/x</guid><title>t</title>')
    ],
    ["a guid that is a permalink and no link", rss("", "<guid>http://example.com/y</guid><title>t</title>")],
    [
      "atom:link, dc and content namespaces under other prefixes",
      rss(
        "<language>fr</language>",
        '<a:link href="/rel"/><dublin:creator>Ann</dublin:creator><dublin:date>2024-01-02T03:04:05Z</dublin:date><c:encoded><![CDATA[<p>body</p>]]></c:encoded><w:commentRss>/c</w:commentRss>',
        'xmlns:a="http://www.w3.org/2005/Atom" xmlns:dublin="http://purl.org/dc/elements/1.1/" xmlns:c="http://purl.org/rss/1.0/modules/content/" xmlns:w="http://wellformedweb.org/CommentAPI/"'
      )
    ],
    [
      "upper-case element names",
      rss("", "<GUID>g3</GUID><Title>Mixed</Title><PubDate>Tue, 10 Jun 2003 04:00:00 GMT</PubDate>")
    ],
    [
      "an empty title and a blank description",
      rss("", "<guid>g4</guid><title></title><description>   </description><author>me@example.com</author>")
    ],
    [
      "Atom with xhtml, html and text constructs, xml:base and authors",
      `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/blog/" xml:lang="en"><title type="html">A &amp;amp; B</title><entry xml:base="posts/"><id>urn:1</id><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><b>Bold</b> title</div></title><summary type="html">&lt;p&gt;s&lt;/p&gt;</summary><content type="xhtml"><xhtml:div xmlns:xhtml="http://www.w3.org/1999/xhtml"><xhtml:p>para</xhtml:p></xhtml:div></content><link rel="replies" href="c1"/><link href="one"/><author><name>Ann</name><uri>/ann</uri></author><updated>2024-02-03T00:00:00Z</updated></entry><entry><id>urn:2</id><title>Plain</title><link rel="self" href="/self"/><author><email>e@example.org</email></author><source><title>Other</title><author><name>Not this</name></author></source></entry></feed>`
    ],
    [
      "Atom under a prefix",
      `<a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:title>P</a:title><a:entry><a:id>urn:p</a:id><a:title>T</a:title><a:link href="http://example.org/p"/></a:entry></a:feed>`
    ],
    [
      "RDF with dc fields",
      `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="http://example.org/"><title>R</title><dc:language>de</dc:language></channel><item rdf:about="http://example.org/1"><title>One</title><link>http://example.org/1</link><dc:creator>Bo</dc:creator><dc:date>2024-03-04</dc:date></item></rdf:RDF>`
    ],
    [
      "a JSON Feed",
      JSON.stringify({
        version: "https://jsonfeed.org/version/1.1",
        title: "J",
        language: "en",
        items: [
          {
            id: 7,
            url: "/j/7",
            title: " T &amp; U ",
            content_html: "<p>x</p>",
            date_published: "2024-05-06T07:08:09Z",
            authors: [{ name: "Cy", url: "https://cy.example" }]
          },
          { id: "8", content_text: "plain" }
        ]
      })
    ]
  ])("%s", (what, body) => {
    const feed = sameAsFeedsmith(body, "http://example.com/feed", what)
    assert.isAbove(feed.items.length, 0)
  })

  it.each([
    ["a truncated document", "<rss><channel><item><title>broken</title></chan", "ends inside"],
    ["an HTML page", "<!doctype html><html><body>Not a feed</body></html>", "root element"],
    ["an empty body", "", "no root element"]
  ])("fails on %s, saying why", (_, body, says) => {
    assert.throws(() => FeedParser.parseSync(body), says)
  })

  it("tolerates a closing tag that matches nothing, and one that closes elements left open", () => {
    // feedsmith dropped every item after the stray tag here; keeping them is the point of tolerating it.
    const feed = FeedParser.parseSync(
      "<rss><channel><item><guid>a</guid><description>x<br>y</description></item></foo><item><guid>b</guid></item></channel></rss>"
    )
    assert.deepStrictEqual(
      feed.items.map((i) => [i.guid, i.summary]),
      [
        ["a", "x<br>y"],
        ["b", undefined]
      ]
    )
  })

  it("ignores what follows the root element, rather than reading it as a second document", () => {
    const feed = FeedParser.parseSync("<rss><channel><item><guid>a</guid></item></channel></rss>\n<html><item/></html>")
    assert.deepStrictEqual(
      feed.items.map((i) => i.guid),
      ["a"]
    )
  })

  it("keeps an item's values as raw markup, decoded only when read", () => {
    const doc = FeedXml.read(rss("", "<guid>g</guid><title>A &amp; B <![CDATA[<i>c</i>]]></title>"))
    assert.strictEqual(doc.entries.length, 1)
    assert.strictEqual(doc.entries[0]!.raw.title, "A &amp; B <![CDATA[<i>c</i>]]>")
    assert.strictEqual(FeedXml.text(doc.entries[0]!.raw.title), "A & B <i>c</i>")
  })
})
