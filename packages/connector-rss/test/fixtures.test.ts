import { readFileSync } from "node:fs"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as FeedServer from "./fixtures/FeedServer.ts"
import { collect, errors, text, upserts } from "./fixtures/run.ts"

// the fixture feeds live in this repository (see fixtures/feeds/README.md for where they come from)
const feedsDir = new URL("./fixtures/feeds/", import.meta.url)
const manifest = JSON.parse(readFileSync(new URL("manifest.json", feedsDir), "utf8")) as {
  feeds: ReadonlyArray<{ file: string; feedType: string }>
}
const idOf = (file: string) => file.replace(/^.*\//, "").replace(/\.xml$/, "")

/** Runs one source over every fixture feed until each has been fetched once, then a little longer. */
const runAll = Effect.gen(function* () {
  const server = yield* FeedServer.make((req, res) => {
    const file = decodeURIComponent((req.url ?? "/").slice(1))
    // Serve bytes as captured: no charset in the header, so the XML declaration decides.
    res.writeHead(200, { "content-type": "application/xml" }).end(readFileSync(new URL(file, feedsDir)))
  })
  const config = {
    feeds: manifest.feeds.map((f) => ({ url: server.url(`/${f.file}`), id: idOf(f.file) })),
    pollInterval: "1 hour",
    maxItemsPerPoll: 10_000
  }
  const events = yield* collect(config, () => false, {
    // A safety net, not a speed bound: stopWhen ends the run once every feed is in. On a CI machine at
    // load ~45, 40 of the 45 feeds had been fetched and parsed after 20 s.
    timeout: "100 seconds",
    // Stop once every feed was served and its document had time to be parsed.
    stopWhen: Effect.gen(function* () {
      while (server.requests.length < manifest.feeds.length) yield* Effect.sleep("20 millis")
      yield* Effect.sleep("500 millis")
    })
  })
  assert.strictEqual(server.requests.length, manifest.feeds.length)
  return { events, server }
})

describe("every fixture feed", () => {
  it.live(
    "parses into events with non-empty content and stable, unique references",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const first = yield* runAll
          assert.strictEqual(errors(first.events).length, 0, JSON.stringify(errors(first.events)))
          const items = upserts(first.events)
          const counts: Record<string, number> = {}
          for (const f of manifest.feeds) counts[`${f.feedType} ${idOf(f.file)}`] = 0
          for (const e of items) {
            assert.isAbove(text(e).trim().length, 0, `empty content for ${e.reference}`)
            assert.isAtMost(e.reference.length, 256)
            const id = e.reference.slice(4, e.reference.indexOf("/"))
            const f = manifest.feeds.find((m) => idOf(m.file) === id)!
            counts[`${f.feedType} ${id}`]! += 1
          }
          const refs = items.map((e) => e.reference)
          assert.strictEqual(new Set(refs).size, refs.length, "references must be unique")
          // Every feed yields at least one event.
          for (const [feed, n] of Object.entries(counts)) assert.isAbove(n, 0, feed)
          expect(counts).toMatchSnapshot()

          // A second run from scratch gives the very same references.
          const second = yield* runAll
          assert.deepStrictEqual(
            upserts(second.events)
              .map((e) => e.reference)
              .sort(),
            [...refs].sort()
          )
        })
      ),
    240_000
  )
})
