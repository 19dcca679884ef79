import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type FeedParser, RssConnector } from "../src/index.ts"
import * as FeedServer from "./fixtures/FeedServer.ts"
import { collect, fast, text, upserts } from "./fixtures/run.ts"

const feed = (guids: ReadonlyArray<number>): FeedParser.Feed => ({
  format: "rss",
  items: guids.map((g) => ({ guid: `g${g}`, title: `T${g}`, summary: `body ${g}` }))
})
const spec: RssConnector.FeedSpec = { id: "f", url: "https://example.test/feed", content: "auto" }

describe("diff", () => {
  it("remembers what the feed still returns plus the most recent others, up to retain", () => {
    const options = { maxItems: 100, retain: 4 }
    const a = RssConnector.diff(spec, feed([3, 2, 1]), { items: {} }, {}, options)
    assert.strictEqual(a.events.length, 3)
    const b = RssConnector.diff(spec, feed([6, 5, 4]), a.state, {}, options)
    assert.strictEqual(b.events.length, 3)
    // 3 current + the most recent older one (g3) = retain 4
    assert.strictEqual(Object.keys(b.state.items).length, 4)
    const hashes = (n: number) => upsertRef(a.events, n) ?? upsertRef(b.events, n)
    assert.isDefined(b.state.items[hashes(3)!.slice(-32)])
    assert.isUndefined(b.state.items[hashes(1)!.slice(-32)])
    // g3 comes back: remembered, not emitted; g1 comes back: forgotten, emitted again (same reference).
    const c = RssConnector.diff(spec, feed([6, 5, 4, 3]), b.state, {}, options)
    assert.strictEqual(c.events.length, 0)
    const d = RssConnector.diff(spec, feed([6, 5, 4, 1]), b.state, {}, options)
    assert.deepStrictEqual(
      d.events.map((e) => e.reference),
      [hashes(1)]
    )
  })

  it("keeps every item the feed returns even above retain", () => {
    const a = RssConnector.diff(spec, feed([5, 4, 3, 2, 1]), { items: {} }, {}, { maxItems: 100, retain: 2 })
    assert.strictEqual(Object.keys(a.state.items).length, 5)
  })

  it("maxItems: newest first, the older rest on the next poll, validators held back until caught up", () => {
    const options = { maxItems: 2, retain: 100 }
    const a = RssConnector.diff(spec, feed([5, 4, 3, 2, 1]), { items: {} }, { etag: '"v1"' }, options)
    assert.deepStrictEqual(
      a.events.map((e) => (e.content.type === "text" ? e.content.text : "")),
      ["T5\n\nbody 5", "T4\n\nbody 4"]
    )
    assert.isTrue(a.truncated)
    assert.isUndefined(a.state.etag)
    const b = RssConnector.diff(spec, feed([5, 4, 3, 2, 1]), a.state, { etag: '"v1"' }, options)
    const c = RssConnector.diff(spec, feed([5, 4, 3, 2, 1]), b.state, { etag: '"v1"' }, options)
    assert.deepStrictEqual([b.events.length, c.events.length], [2, 1])
    assert.deepStrictEqual(
      [...b.events, ...c.events].map((e) => e.post?.title),
      ["T3", "T2", "T1"]
    )
    assert.strictEqual(c.state.etag, '"v1"')
  })

  it("the turns of a backlog select from one inventory what a diff of the document at each turn would", () => {
    const options = { maxItems: 2, retain: 100 }
    const document = feed([7, 6, 5, 4, 3, 2, 1])
    // the document of the last poll is known (items 1-3), the rest is new
    const last = RssConnector.diff(
      spec,
      feed([3, 2, 1]),
      { items: {} },
      { etag: '"v0"' },
      { ...options, maxItems: 100 }
    )
    const inventory = RssConnector.inventory(spec, document, last.known)
    let fresh = last
    let reused = last
    for (let turn = 1; turn <= 3; turn++) {
      const validators = { etag: '"v1"' }
      const next = RssConnector.diff(spec, document, fresh.state, validators, { ...options, known: fresh.known })
      const selected = RssConnector.select(spec, document, inventory, reused.state, validators, options)
      assert.deepStrictEqual(selected.events, next.events, `turn ${turn}`)
      assert.deepStrictEqual(selected.state, next.state, `turn ${turn}`)
      assert.deepStrictEqual([selected.truncated, selected.backlog], [next.truncated, next.backlog], `turn ${turn}`)
      fresh = next
      reused = selected
    }
    assert.deepStrictEqual([fresh.truncated, fresh.backlog, fresh.state.etag], [false, 0, '"v1"'])
  })

  it("newest first by date when every item has one, whatever the document's order", () => {
    const dated = (order: ReadonlyArray<number>): FeedParser.Feed => ({
      format: "rss",
      items: order.map((g) => ({
        guid: `g${g}`,
        title: `T${g}`,
        summary: `body ${g}`,
        publishedAt: new Date(Date.UTC(2025, 0, g)).toISOString()
      }))
    })
    const titles = (f: FeedParser.Feed) =>
      RssConnector.diff(spec, f, { items: {} }, {}, { maxItems: 100, retain: 100 }).events.map((e) => e.post?.title)
    // A forum that lists its comments oldest first.
    assert.deepStrictEqual(titles(dated([1, 2, 3])), ["T3", "T2", "T1"])
    assert.deepStrictEqual(titles(dated([2, 3, 1])), ["T3", "T2", "T1"])
    // One item without a date: the document's order (feeds list newest first).
    const undated = { ...dated([1, 3]), items: [...dated([1, 3]).items, { guid: "g9", title: "T9", summary: "b" }] }
    assert.deepStrictEqual(titles(undated), ["T1", "T3", "T9"])
  })
})

describe("diff with the last poll's known items", () => {
  /** Poll n of a growing window that edits, drops and brings back items, with link-sharing items and empty ones. */
  const poll = (n: number): FeedParser.Feed => ({
    format: "rss",
    language: n >= 6 ? "de" : "en",
    items: [
      ...Array.from({ length: 8 }, (_, i) => 3 * n + 8 - i)
        .filter((g) => g % 7 !== n % 7)
        .map((g) => ({
          guid: `g${g}`,
          title: `T${g}`,
          summary: g % 5 === 0 && n % 2 === 1 ? `body ${g}, edited at poll ${n}` : `<p>body ${g}</p>`
        })),
      // No guid, one link: told apart by title; the second's identity depends on the first being there.
      ...(n % 3 === 0 ? [] : [{ link: "https://example.test/shared", title: "First on the link" }]),
      { link: "https://example.test/shared", title: "Second on the link", summary: `poll ${Math.floor(n / 4)}` },
      { guid: "empty", title: "" },
      { guid: "g-dup", title: "Twice", summary: "same" },
      { guid: "g-dup", title: "Twice", summary: "same" }
    ]
  })

  it("emits the same events and keeps the same state as a diff that prepares every item", () => {
    for (const options of [
      { maxItems: 100, retain: 100 },
      { maxItems: 3, retain: 100 },
      { maxItems: 100, retain: 6 }
    ]) {
      let plain = RssConnector.diff(spec, poll(0), { items: {} }, {}, options)
      let memo = plain
      for (let n = 1; n <= 12; n++) {
        const next = RssConnector.diff(spec, poll(n), plain.state, { etag: `"${n}"` }, options)
        const withKnown = RssConnector.diff(
          spec,
          poll(n),
          memo.state,
          { etag: `"${n}"` },
          {
            ...options,
            known: memo.known
          }
        )
        assert.deepStrictEqual(withKnown.events, next.events, `poll ${n}, ${JSON.stringify(options)}`)
        assert.deepStrictEqual(withKnown.state, next.state, `poll ${n}, ${JSON.stringify(options)}`)
        assert.strictEqual(withKnown.truncated, next.truncated)
        plain = next
        memo = withKnown
      }
    }
  })

  it("emits an item known from the last poll that was held back by maxItems, with its full event", () => {
    const options = { maxItems: 2, retain: 100 }
    const a = RssConnector.diff(spec, feed([4, 3, 2, 1]), { items: {} }, {}, options)
    const b = RssConnector.diff(spec, feed([4, 3, 2, 1]), a.state, {}, { ...options, known: a.known })
    assert.deepStrictEqual(
      b.events.map((e) => (e.content.type === "text" ? e.content.text : "")),
      ["T2\n\nbody 2", "T1\n\nbody 1"]
    )
    assert.strictEqual(b.events[0]?.post?.title, "T2")
  })
})

const upsertRef = (events: ReadonlyArray<{ reference: string; content: { type: string } }>, n: number) =>
  events.find((e) => (e.content as { text?: string }).text === `T${n}\n\nbody ${n}`)?.reference

describe("content field", () => {
  it.live("comments: the body is the comment, the commented article goes to post", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FeedServer.make(
          FeedServer.document(() =>
            FeedServer.rss([
              {
                guid: "c1",
                title: "Comment on Hello world by Ann",
                description: "<p>Nice post!</p>",
                link: "https://blog.example/hello/#comment-1"
              }
            ])
          )
        )
        const events = yield* collect(
          { feeds: [{ url: server.url("/comments/feed"), content: "comments" }], ...fast },
          (es) => upserts(es).length >= 1
        )
        const [e] = upserts(events)
        assert.strictEqual(text(e!), "Nice post!")
        assert.deepStrictEqual(e!.post, { title: "Hello world", permalink: "https://blog.example/hello/" })
        assert.strictEqual(e!.permalink, "https://blog.example/hello/#comment-1")
      })
    )
  )

  it.live("title and summary", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FeedServer.make(
          FeedServer.document(() =>
            FeedServer.rss([{ guid: "1", title: "The &amp; title", description: "<i>sum</i>" }])
          )
        )
        const events = yield* collect(
          {
            feeds: [
              { url: server.url("/a"), id: "a", content: "title" },
              { url: server.url("/b"), id: "b", content: "summary" }
            ],
            ...fast
          },
          (es) => upserts(es).length >= 2
        )
        assert.deepStrictEqual(upserts(events).map(text).sort(), ["The & title", "sum"])
      })
    )
  )
})
