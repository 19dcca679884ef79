import * as Zlib from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { Connector, ConnectorError, type SourceEvent } from "@warden/connector"
import { Effect, Option, Stream } from "effect"
import { connector, FeedParser, RssConnector } from "../src/index.ts"
import * as FeedServer from "./fixtures/FeedServer.ts"
import { collect, errors, fast, text, upserts } from "./fixtures/run.ts"

const items = (n: number, from = 1): Array<FeedServer.Item> =>
  Array.from({ length: n }, (_, i) => ({
    guid: `item-${from + i}`,
    title: `Title ${from + i}`,
    description: `<p>Body <b>${from + i}</b> &amp; more</p>`,
    link: `http://example.test/${from + i}`
  })).reverse()

describe("polling", () => {
  it.live("conditional GET: validators are sent back and a 304 emits nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FeedServer.make(FeedServer.document(() => FeedServer.rss(items(2))))
        const events = yield* collect({ feeds: [server.url("/feed")], ...fast }, () => false, {
          stopWhen: Effect.gen(function* () {
            while (server.requests.length < 3) yield* Effect.sleep("10 millis")
          })
        })
        const [first, second] = server.requests
        assert.isUndefined(first!.headers["if-none-match"])
        assert.match(String(second!.headers["if-none-match"]), /^"[0-9a-f]+"$/)
        assert.strictEqual(second!.headers["if-modified-since"], "Wed, 01 Jan 2025 00:00:00 GMT")
        assert.strictEqual(first!.headers["accept-encoding"], "gzip, deflate, br")
        assert.deepStrictEqual(
          upserts(events).map(text),
          ["Title 2\n\nBody 2 & more", "Title 1\n\nBody 1 & more"],
          "newest first, HTML to text, then nothing more"
        )
        assert.strictEqual(errors(events).length, 0)
      })
    )
  )

  it.live("a poll that finds nothing to emit hands over a progress event with the checkpoint", () =>
    Effect.scoped(
      Effect.gen(function* () {
        let doc = items(2)
        const server = yield* FeedServer.make((req, res) => {
          // /etag answers 304 to its validators; /plain sends none (the same document every time);
          // /shrinking drops an item after the first poll (a new document with nothing new in it).
          if (req.url === "/plain") FeedServer.document(() => FeedServer.rss(items(2)), { validators: false })(req, res)
          else if (req.url === "/shrinking") FeedServer.document(() => FeedServer.rss(doc))(req, res)
          else FeedServer.document(() => FeedServer.rss(items(2)))(req, res)
        })
        const quiet = (path: string, id: string) =>
          collect({ feeds: [{ url: server.url(path), id }], ...fast }, (es) => {
            if (id === "shrinking" && upserts(es).length === 2) doc = items(1)
            return es.filter((e) => e.kind === "progress").length >= 2
          })
        for (const [path, id] of [
          ["/etag", "etag"],
          ["/plain", "plain"],
          ["/shrinking", "shrinking"]
        ] as const) {
          const events = yield* quiet(path, id)
          assert.deepStrictEqual(
            events.map((e) => e.kind),
            ["upsert", "upsert", "progress", "progress"],
            path
          )
          const last = upserts(events)[1]!.checkpoint as { feeds: Record<string, { etag?: string }> }
          const progress = events[2] as SourceEvent.Progress
          if (id === "shrinking") {
            // A new document: its validators are the new checkpoint.
            assert.notStrictEqual(
              (progress.checkpoint as typeof last).feeds.shrinking!.etag,
              last.feeds.shrinking!.etag
            )
          } else assert.deepStrictEqual(progress.checkpoint, last, path)
        }
        assert.isTrue(server.requests.some((r) => r.path === "/etag" && r.headers["if-none-match"] !== undefined))
      })
    )
  )

  it.live("the same document again, no validators: a truncated poll still gets the rest, then nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // No ETag, no Last-Modified: every poll gets the whole document, the same one every time.
        const server = yield* FeedServer.make(
          FeedServer.document(() => FeedServer.rss(items(5)), { validators: false })
        )
        const events = yield* collect({ feeds: [server.url("/feed")], ...fast, maxItemsPerPoll: 2 }, () => false, {
          stopWhen: Effect.gen(function* () {
            while (server.requests.length < 6) yield* Effect.sleep("10 millis")
          })
        })
        assert.deepStrictEqual(
          upserts(events).map((e) => e.post?.title),
          ["Title 5", "Title 4", "Title 3", "Title 2", "Title 1"],
          "two a poll, newest first, each once"
        )
        assert.strictEqual(errors(events).length, 0)
      })
    )
  )

  it.live("a backlog beyond maxItemsPerPoll is read on at once, newest first, not a pollInterval later", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FeedServer.make(FeedServer.document(() => FeedServer.rss(items(5))))
        const events = yield* collect(
          { feeds: [server.url("/feed")], pollInterval: "1 hour", maxItemsPerPoll: 2 },
          (es) => upserts(es).length >= 5
        )
        assert.deepStrictEqual(
          upserts(events).map((e) => e.post?.title),
          ["Title 5", "Title 4", "Title 3", "Title 2", "Title 1"]
        )
        // Three polls of two items at most, back to back; the validators were held back until the last.
        assert.strictEqual(server.requests.length, 3)
        assert.isUndefined(server.requests[2]!.headers["if-none-match"])
      })
    )
  )

  it.live("an item posted while a backlog is read goes in the next turn, before the older rest", () =>
    Effect.scoped(
      Effect.gen(function* () {
        let posted = items(5)
        const server = yield* FeedServer.make((req, res) => FeedServer.document(() => FeedServer.rss(posted))(req, res))
        const events = yield* collect(
          { feeds: [server.url("/feed")], pollInterval: "1 hour", maxItemsPerPoll: 2 },
          (es) => {
            // posted once the first turn is handed over; the next turns fetch the changed document
            if (upserts(es).length === 2 && posted.length === 5) posted = [...items(1, 6), ...posted]
            return upserts(es).length >= 6
          }
        )
        assert.deepStrictEqual(
          upserts(events).map((e) => e.post?.title),
          ["Title 5", "Title 4", "Title 6", "Title 3", "Title 2", "Title 1"]
        )
      })
    )
  )

  it.live("a restart in the middle of a backlog reads the older items not yet emitted: none is skipped", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FeedServer.make(FeedServer.document(() => FeedServer.rss(items(5))))
        const config = { feeds: [{ url: server.url("/feed"), id: "blog" }], pollInterval: "1 hour", maxItemsPerPoll: 2 }
        // The first run stops (a crash) once the newest two were emitted: the daemon has committed the
        // checkpoint of the last of them.
        const first = yield* collect(config, (es) => upserts(es).length >= 2)
        assert.deepStrictEqual(
          upserts(first).map((e) => e.post?.title),
          ["Title 5", "Title 4"]
        )
        const checkpoint = JSON.parse(JSON.stringify(upserts(first).at(-1)!.checkpoint))
        const restartedAt = server.requests.length
        const second = yield* collect(config, (es) => upserts(es).length >= 5, { from: checkpoint })
        // The checkpoint kept the validators from before the backlog: the whole document again, newest
        // first (the daemon drops 5 and 4, analysed already), and the older three with it.
        assert.deepStrictEqual(
          upserts(second).map((e) => e.post?.title),
          ["Title 5", "Title 4", "Title 3", "Title 2", "Title 1"]
        )
        assert.isUndefined(server.requests[restartedAt]!.headers["if-none-match"])
      })
    )
  )

  it.live("a backlog that does not shrink (items that change at every fetch) waits for pollInterval", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // Every answer gives each item a new body: each poll finds all three changed, and emits one.
        const server = yield* FeedServer.make((req, res) =>
          FeedServer.document(() =>
            FeedServer.rss(items(3).map((i) => ({ ...i, description: `${i.description} ${server.requests.length}` })))
          )(req, res)
        )
        const events = yield* collect(
          { feeds: [server.url("/feed")], pollInterval: "1 hour", maxItemsPerPoll: 1 },
          () => false,
          {
            // Two polls, then long enough for a loop that does not wait to have polled many times over.
            stopWhen: Effect.gen(function* () {
              while (server.requests.length < 2) yield* Effect.sleep("10 millis")
              yield* Effect.sleep("300 millis")
            })
          }
        )
        // The first poll left 2, the second (at once) 2 again: no progress, so no third poll this hour.
        assert.strictEqual(server.requests.length, 2)
        assert.strictEqual(upserts(events).length, 2)
      })
    )
  )

  it.live("the same document with a new Last-Modified: the next request sends the new one back", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const body = FeedServer.rss(items(2))
        const lastModified = (n: number) => new Date(Date.UTC(2025, 0, 1 + n)).toUTCString()
        const server = yield* FeedServer.make((_req, res) => {
          res
            .writeHead(200, {
              "content-type": "application/rss+xml; charset=utf-8",
              "last-modified": lastModified(server.requests.length)
            })
            .end(body)
        })
        yield* collect({ feeds: [server.url("/feed")], ...fast }, () => false, {
          stopWhen: Effect.gen(function* () {
            while (server.requests.length < 4) yield* Effect.sleep("10 millis")
          })
        })
        // Answers 1, 2 and 3 carried days 1, 2 and 3; the document was the same from the second on.
        assert.deepStrictEqual(
          server.requests.slice(1, 4).map((r) => r.headers["if-modified-since"]),
          [lastModified(1), lastModified(2), lastModified(3)]
        )
      })
    )
  )

  it.live("429 with Retry-After: an error event, and the next try waits at least that long", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const ok = FeedServer.document(() => FeedServer.rss(items(1)))
        const server = yield* FeedServer.make((req, res) => {
          if (server.requests.length === 1) res.writeHead(429, { "retry-after": "1" }).end()
          else ok(req, res)
        })
        const events = yield* collect({ feeds: [server.url("/feed")], ...fast }, (es) => upserts(es).length >= 1)
        const [error] = errors(events)
        assert.strictEqual(error?.reason, "RateLimited")
        assert.isAtLeast(error!.retryInMillis, 1000)
        assert.isAtLeast(server.requests[1]!.at - server.requests[0]!.at, 950)
        assert.strictEqual(upserts(events).length, 1)
      })
    )
  )

  it.live("503: error events with growing attempts and backoff, then recovery", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const ok = FeedServer.document(() => FeedServer.rss(items(1)))
        const server = yield* FeedServer.make((req, res) => {
          if (server.requests.length <= 3) res.writeHead(503).end()
          else ok(req, res)
        })
        const events = yield* collect(
          { feeds: [server.url("/feed?token=secret")], ...fast, retry: { initial: "100 millis", max: "1 second" } },
          (es) => upserts(es).length >= 1
        )
        const errs = errors(events)
        assert.deepStrictEqual(
          errs.map((e) => [e.reason, e.attempt]),
          [
            ["Unavailable", 1],
            ["Unavailable", 2],
            ["Unavailable", 3]
          ]
        )
        // Exponential: 100, 200, 400 ms (±20% jitter).
        assert.isAbove(errs[2]!.retryInMillis, errs[0]!.retryInMillis * 2)
        assert.notInclude(errs[0]!.message, "secret", "the query string may hold a token")
        assert.include(errs[0]!.message, "HTTP 503")
      })
    )
  )

  it.live("a timeout is an error event and a retry", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const ok = FeedServer.document(() => FeedServer.rss(items(1)))
        const server = yield* FeedServer.make((req, res) => {
          if (server.requests.length === 1) setTimeout(() => ok(req, res), 1500).unref()
          else ok(req, res)
        })
        const events = yield* collect(
          { feeds: [server.url("/feed")], ...fast, timeout: "200 millis" },
          (es) => upserts(es).length >= 1
        )
        assert.strictEqual(errors(events)[0]?.reason, "Timeout")
        assert.strictEqual(upserts(events).length, 1)
      })
    )
  )

  it.live("malformed XML: an error event and a retry, never a crash", () =>
    Effect.scoped(
      Effect.gen(function* () {
        let body = "<rss><channel><item><title>broken</title></chan"
        const server = yield* FeedServer.make(FeedServer.document(() => body))
        const events = yield* collect({ feeds: [server.url("/feed")], ...fast }, (es) => {
          if (errors(es).length === 2) body = FeedServer.rss(items(1))
          return upserts(es).length >= 1
        })
        assert.strictEqual(errors(events)[0]?.reason, "InvalidResponse")
        assert.include(errors(events)[0]?.message, "not a valid RSS, Atom, RDF or JSON feed")
        assert.strictEqual(text(upserts(events)[0]!), "Title 1\n\nBody 1 & more")
      })
    )
  )

  it.live("a feed that drops and re-adds items emits nothing new; an edit is re-emitted with the same reference", () =>
    Effect.scoped(
      Effect.gen(function* () {
        let doc = items(3)
        const server = yield* FeedServer.make(FeedServer.document(() => FeedServer.rss(doc)))
        const polls = (n: number) =>
          Effect.gen(function* () {
            const target = server.requests.length + n
            while (server.requests.length < target) yield* Effect.sleep("10 millis")
            yield* Effect.sleep("50 millis")
          })
        const events = yield* collect({ feeds: [server.url("/feed")], ...fast }, () => false, {
          stopWhen: Effect.gen(function* () {
            yield* polls(1)
            doc = doc.filter((i) => i.guid !== "item-2") // dropped
            yield* polls(2)
            doc = items(3) // re-added
            yield* polls(2)
            doc = items(3).map((i) => (i.guid === "item-2" ? { ...i, description: "edited body" } : i))
            yield* polls(2)
          })
        })
        const ups = upserts(events)
        assert.strictEqual(ups.length, 4)
        assert.strictEqual(ups[3]!.reference, ups[1]!.reference)
        assert.strictEqual(text(ups[3]!), "Title 2\n\nedited body")
      })
    )
  )

  it.live(
    "the checkpoint holds validators only; after a restart the changed window is emitted once, edits included",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          let doc = items(3)
          const server = yield* FeedServer.make(FeedServer.document(() => FeedServer.rss(doc)))
          const config = { feeds: [{ url: server.url("/feed"), id: "blog" }], ...fast }
          const first = yield* collect(config, (es) => upserts(es).length >= 3)
          const checkpoint = JSON.parse(JSON.stringify(upserts(first).at(-1)!.checkpoint))
          assert.deepStrictEqual(Object.keys(checkpoint.feeds.blog).sort(), ["etag", "lastModified"])
          doc = [{ guid: "item-4", title: "Title 4", description: "new" }, ...items(3)].map((i) =>
            i.guid === "item-1" ? { ...i, title: "Title 1 (updated)" } : i
          )
          const second = yield* collect(config, () => false, {
            from: checkpoint,
            stopWhen: Effect.gen(function* () {
              const target = server.requests.length + 2
              while (server.requests.length < target) yield* Effect.sleep("10 millis")
            })
          })
          const refs = upserts(first).map((e) => e.reference)
          assert.isTrue(refs.every((r) => r.startsWith("rss:blog/")))
          // The daemon dedupes items 2 and 3 (same reference and content hash) and re-analyses item 1.
          assert.deepStrictEqual(
            upserts(second).map((e) => [refs.indexOf(e.reference), text(e)]),
            [
              [-1, "Title 4\n\nnew"],
              [0, "Title 3\n\nBody 3 & more"],
              [1, "Title 2\n\nBody 2 & more"],
              [2, "Title 1 (updated)\n\nBody 1 & more"]
            ]
          )
        })
      )
  )

  it.live("a version 1 checkpoint (with the item map) is still read: only what changed is emitted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const doc = items(3)
        const server = yield* FeedServer.make(FeedServer.document(() => FeedServer.rss(doc), { validators: false }))
        const config = { feeds: [{ url: server.url("/feed"), id: "blog" }], ...fast }
        const first = yield* collect(config, (es) => upserts(es).length >= 3)
        const spec = { id: "blog", url: server.url("/feed"), content: "auto" as const }
        const parsed = yield* FeedParser.parse(FeedServer.rss(doc), server.url("/feed"))
        const v1 = {
          v: 1,
          feeds: { blog: RssConnector.diff(spec, parsed, { items: {} }, {}, { maxItems: 100, retain: 1000 }).state }
        }
        const second = yield* collect(config, () => false, {
          from: v1,
          stopWhen: Effect.gen(function* () {
            const target = server.requests.length + 2
            while (server.requests.length < target) yield* Effect.sleep("10 millis")
          })
        })
        assert.strictEqual(upserts(first).length, 3)
        assert.strictEqual(upserts(second).length, 0)
      })
    )
  )

  it.live("an unreadable checkpoint fails the stream with a typed, non-retryable ConnectorError", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const source = yield* Connector.makeSource(connector, { feeds: ["http://127.0.0.1:9/"] })
        const error = yield* Effect.flip(Stream.runDrain(source.events(Option.some({ v: 2 }))))
        assert.instanceOf(error, ConnectorError.ConnectorError)
        assert.strictEqual(error.reason, "InvalidCheckpoint")
        assert.isFalse(error.retryable)
      })
    )
  )
})

describe("fetching", () => {
  for (const encoding of ["gzip", "br", "deflate"] as const) {
    it.live(`decodes ${encoding}`, () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* FeedServer.make(FeedServer.document(() => FeedServer.rss(items(2)), { encoding }))
          const events = yield* collect({ feeds: [server.url("/feed")], ...fast }, (es) => upserts(es).length >= 2)
          assert.strictEqual(upserts(events).length, 2)
        })
      )
    )
  }

  it.live("charset from the HTTP header, else from the XML declaration", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const latin1 = (s: string) => Buffer.from(s, "latin1")
        const body = (decl: string) =>
          latin1(`<?xml version="1.0"${decl}?><rss version="2.0"><channel><title>t</title>
<item><guid>1</guid><title>Caf\u00e9 cr\u00e8me</title><description>d\u00e9j\u00e0 vu</description></item></channel></rss>`)
        const server = yield* FeedServer.make((req, res) => {
          if (req.url === "/header") {
            FeedServer.document(() => body(""), { contentType: "application/rss+xml; charset=ISO-8859-1" })(req, res)
          } else FeedServer.document(() => body(' encoding="windows-1252"'), { contentType: "text/xml" })(req, res)
        })
        const events = yield* collect(
          { feeds: [server.url("/header"), server.url("/declaration")], ...fast },
          (es) => upserts(es).length >= 2
        )
        assert.deepStrictEqual(upserts(events).map(text), ["Café crème\n\ndéjà vu", "Café crème\n\ndéjà vu"])
      })
    )
  )

  it.live("redirects are followed, and bounded", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const ok = FeedServer.document(() => FeedServer.rss(items(1)))
        const server = yield* FeedServer.make((req, res) => {
          if (req.url === "/old") res.writeHead(301, { location: "/new" }).end()
          else if (req.url?.startsWith("/loop")) res.writeHead(302, { location: `/loop${req.url.length}` }).end()
          else ok(req, res)
        })
        const events = yield* collect(
          { feeds: [server.url("/old"), server.url("/loop")], ...fast, maxRedirects: 3 },
          (es) => upserts(es).length >= 1 && errors(es).length >= 1
        )
        assert.strictEqual(upserts(events).length, 1)
        assert.include(errors(events)[0]!.message, "more than 3 redirects")
        assert.strictEqual(server.requests.filter((r) => r.path.startsWith("/loop")).length, 4)
      })
    )
  )

  it.live("the size cap is enforced while streaming, also on compressed bodies", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const huge = FeedServer.rss([{ guid: "x", title: "big", description: "a".repeat(200_000) }])
        const server = yield* FeedServer.make((req, res) => {
          if (req.url === "/chunked") {
            // No Content-Length: the cap must apply to the decompressed stream.
            res.writeHead(200, { "content-type": "application/rss+xml", "content-encoding": "gzip" })
            res.end(Zlib.gzipSync(huge))
          } else FeedServer.document(() => huge)(req, res)
        })
        const events = yield* collect(
          { feeds: [server.url("/chunked"), server.url("/plain")], ...fast, maxBytes: 100_000 },
          (es) => errors(es).length >= 2
        )
        assert.deepStrictEqual(
          errors(events).map((e) => [e.reason, /over the cap of 100000 bytes/.test(e.message)]),
          [
            ["InvalidResponse", true],
            ["InvalidResponse", true]
          ]
        )
      })
    )
  )

  it.live("JSON Feed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const feed = {
          version: "https://jsonfeed.org/version/1.1",
          title: "J",
          language: "en",
          items: [
            {
              id: "j1",
              url: "https://example.test/j1",
              content_html: "<p>Hello <em>JSON</em></p>",
              date_published: "2024-01-02T03:04:05Z",
              authors: [{ name: "Ann" }]
            }
          ]
        }
        const server = yield* FeedServer.make(
          FeedServer.document(() => JSON.stringify(feed), { contentType: "application/feed+json" })
        )
        const events = yield* collect(
          { feeds: [{ url: server.url("/feed.json"), id: "j" }], ...fast },
          (es) => upserts(es).length >= 1
        )
        const [e] = upserts(events)
        assert.strictEqual(text(e!), "Hello JSON")
        assert.strictEqual(e!.permalink, "https://example.test/j1")
        assert.strictEqual(e!.publishedAt, "2024-01-02T03:04:05.000Z")
        assert.deepStrictEqual(e!.author, { identifier: "name:j/ann", username: "Ann" })
        // The feed's `language` is the site's default, not the item's (test/language.test.ts).
        assert.isUndefined(e!.language)
      })
    )
  )

  it.live("custom headers are sent (Redacted in the config)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FeedServer.make(FeedServer.document(() => FeedServer.rss(items(1))))
        yield* collect(
          { feeds: [server.url("/feed")], ...fast, headers: { Authorization: "Bearer s3cret" } },
          (es) => upserts(es).length >= 1
        )
        assert.strictEqual(server.requests[0]!.headers.authorization, "Bearer s3cret")
      })
    )
  )
})
