/**
 * Issue 37: every event that names an author names them by a stable `author.identifier` (what
 * `warden erase --author` and an author's history key on): the author's URI, else their email address,
 * else the feed id and the case-folded name.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AuthorIdentifier, FeedParser } from "../src/index.ts"
import { firstPolls, idOf } from "./fixtures/Corpus.ts"
import * as FeedServer from "./fixtures/FeedServer.ts"
import { collect, fast, upserts } from "./fixtures/run.ts"

describe("an RSS author written as one string", () => {
  it("is split into a name and an email address where it holds one", () => {
    const cases: ReadonlyArray<[string, FeedParser.FeedAuthor]> = [
      // RSS 2.0's own example (rssboard.org), and what its sample feeds write.
      ["lawyer@boyer.net (Lawyer Boyer)", { name: "Lawyer Boyer", email: "lawyer@boyer.net" }],
      ["mark@example.org", { name: "mark@example.org", email: "mark@example.org" }],
      ["Lawyer Boyer <lawyer@boyer.net>", { name: "Lawyer Boyer", email: "lawyer@boyer.net" }],
      // The RDF example with modules (validator.w3.org) writes dc:creator so.
      ["Simon St.Laurent (mailto:simonstl@simonstl.com)", { name: "Simon St.Laurent", email: "simonstl@simonstl.com" }],
      ["Joe Gargery", { name: "Joe Gargery" }],
      ["Maanvi Singh (now); Gloria Oladipo (earlier)", { name: "Maanvi Singh (now); Gloria Oladipo (earlier)" }]
    ]
    for (const [value, author] of cases) assert.deepStrictEqual(FeedParser.namedAuthor(value), author, value)
  })
})

describe("author.identifier", () => {
  it("is the URI, else the email address, else the feed id and the case-folded name", () => {
    const id = (author: FeedParser.FeedAuthor) => AuthorIdentifier.identifier("blog", author)
    assert.strictEqual(
      id({ name: "Ann", uri: "https://ann.example/", email: "ann@example.com" }),
      "https://ann.example/"
    )
    assert.strictEqual(id({ name: "Ann", email: "Ann@Example.COM" }), "mailto:ann@example.com")
    // Blogger gives every commenter noreply@blogger.com: that names no one.
    assert.strictEqual(id({ name: "Ann  Smith", email: "noreply@blogger.com" }), "name:blog/ann smith")
    assert.strictEqual(id({ name: "ANN SMITH" }), "name:blog/ann smith")
    // NFKC: a full-width or composed name is the same name.
    assert.strictEqual(id({ name: "Ｌｕｃíａ" }), id({ name: "lucía" }))
    // A URI that is not absolute names nothing on its own.
    assert.strictEqual(id({ name: "Ann", uri: "/ann" }), "name:blog/ann")
    // The same name in another feed is another identifier.
    assert.notStrictEqual(AuthorIdentifier.identifier("news", { name: "Ann" }), id({ name: "Ann" }))
  })

  it("is set on every event of every fixture feed (real feeds) that names an author", () => {
    const polls = firstPolls()
    const named = polls.flatMap((p) => p.events.filter((e) => e.author !== undefined))
    // 22 of the 45 feeds name no item author; the other 23 name one on 475 items: 56 by a URI, 3 by an
    // email address, 416 by a name only.
    assert.strictEqual(named.length, 475)
    for (const e of named) assert.isNotEmpty(e.author!.identifier, e.reference)
    const of = (file: string) => [
      ...new Set(polls.find((p) => p.file.includes(file))!.events.map((e) => e.author?.identifier))
    ]
    // Atom with <uri>: the feedparser example, Rowan Manning's blog, GitHub's commits feed.
    assert.deepStrictEqual(of("18433b5bc1827086a07ba71f18dc9baa"), ["http://diveintomark.org/"])
    assert.deepStrictEqual(of("6769a7aac9914f98016cb5d26eef1939"), ["https://rowanmanning.com/"])
    assert.includeMembers(of("d1b6d321bb845c85d51711e414bf56c9"), ["https://github.com/bep"])
    // RSS <author>mark@example.org</author>; Atom with <email> only (Wikipedia's example).
    assert.deepStrictEqual(of("01c988d1667dbd4667b96fe7d865f71a"), ["mailto:mark@example.org"])
    assert.deepStrictEqual(of("9271eb94347e058f3f7b8400ea18496e"), ["mailto:johndoe@example.com"])
    // Names only (The Verge's Atom <name>, WordPress News' dc:creator): the feed id and the name.
    const verge = idOf("real-world/90c654888cac5a6037d18431d480abbf.xml")
    assert.include(of("90c654888cac5a6037d18431d480abbf"), `name:${verge}/sean hollister`)
    // A second poll from scratch names every author the same.
    assert.deepStrictEqual(
      firstPolls().flatMap((p) => p.events.map((e) => e.author?.identifier)),
      polls.flatMap((p) => p.events.map((e) => e.author?.identifier))
    )
  })

  it.live("is sent with the author's name and profile, as the feed is polled", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const feed = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example/">
  <title>Comments</title><id>urn:c</id><updated>2025-01-01T00:00:00Z</updated>
  <entry><id>urn:c:2</id><title>two</title><updated>2025-01-01T00:00:00Z</updated>
    <author><name>Ann</name><uri>/people/ann</uri></author><content>Second</content></entry>
  <entry><id>urn:c:1</id><title>one</title><updated>2025-01-01T00:00:00Z</updated>
    <author><name>Anonymous</name><email>noreply@blogger.com</email></author><content>First</content></entry>
</feed>`
        const server = yield* FeedServer.make(FeedServer.document(() => feed, { contentType: "application/atom+xml" }))
        const events = yield* collect(
          { feeds: [{ url: server.url("/feed"), id: "blog" }], content: "content", ...fast },
          (es) => upserts(es).length >= 2
        )
        assert.deepStrictEqual(
          upserts(events).map((e) => e.author),
          [
            // A relative <uri> is resolved against xml:base: it is the author's profile and identifier.
            {
              identifier: "https://blog.example/people/ann",
              username: "Ann",
              permalink: "https://blog.example/people/ann"
            },
            { identifier: "name:blog/anonymous", username: "Anonymous" }
          ]
        )
      })
    )
  )
})
