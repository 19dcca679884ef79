import type { Conformance } from "@warden/connector/testing"
import { describeConformance } from "@warden/connector/testing"
import { Effect, type Scope } from "effect"
import { connector } from "../src/index.ts"
import * as FeedServer from "./fixtures/FeedServer.ts"
import { fast } from "./fixtures/run.ts"

/**
 * A real feed server: `publish` adds items to the document (each with its author, as `dc:creator`),
 * `edit` changes one's description (same guid), `stop` makes it answer 503. No `remove`: an item leaving a feed is not a deletion (feeds drop
 * old items), so the source emits no deletes.
 */
const setup: Effect.Effect<Conformance.Harness, never, Scope.Scope> = Effect.gen(function* () {
  const published: Array<FeedServer.Item> = []
  let up = true
  const ok = FeedServer.document(() => FeedServer.rss(published))
  const server = yield* FeedServer.make((req, res) => {
    if (up) ok(req, res)
    else res.writeHead(503).end()
  })
  return {
    config: { feeds: [server.url("/feed.xml")], ...fast },
    upstream: {
      publish: (count) =>
        Effect.sync(() => {
          for (let i = 0; i < count; i++) {
            const n = published.length + 1
            published.unshift({
              guid: `g${n}`,
              title: `Item ${n}`,
              description: `<p>body ${n}</p>`,
              author: `Reader ${n}`
            })
          }
        }),
      edit: (index) =>
        Effect.sync(() => {
          const at = published.findIndex((i) => i.guid === `g${index}`)
          published[at] = { ...published[at]!, description: `<p>edited body ${index}</p>` }
        }),
      stop: Effect.sync(() => {
        up = false
      }),
      start: Effect.sync(() => {
        up = true
      })
    }
  }
})

describeConformance("rss", { connector, setup, timeout: "5 seconds" })
