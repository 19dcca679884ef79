/** Feeds are fetched through HTTP_PROXY when it is set (Node's own proxy support), NO_PROXY honoured. */
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Preview } from "@warden/connector"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { connector } from "../src/index.ts"
import * as FeedServer from "./fixtures/FeedServer.ts"

const HOST = "feeds.warden-test.invalid"

describe("feeds behind a proxy", () => {
  let upstream = ""
  const asked: Array<string> = []
  // A forwarding proxy: asked for http://feeds.warden-test.invalid/..., it fetches the local server's same path.
  const proxy = createServer((req, res) => {
    asked.push(req.url ?? "")
    const wanted = new URL(req.url ?? "/")
    const target = new URL(`${wanted.pathname}${wanted.search}`, upstream)
    const forward = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    req.pipe(forward)
  })
  const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY }
  beforeAll(async () => {
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
    proxy.closeAllConnections()
    await new Promise<void>((resolve) => proxy.close(() => resolve()))
  })

  const feed = (title: string) =>
    FeedServer.document(() =>
      FeedServer.rss([{ guid: "g1", title, description: "body", link: "http://example.test/1" }])
    )

  it.live("a feed on a host only the proxy can reach is read through it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FeedServer.make(feed("through the proxy"))
        upstream = new URL(server.url("/feed")).origin
        const events = yield* Preview.preview(connector, { feeds: [`http://${HOST}/feed`] }, 5, {
          timeout: "10 seconds"
        })
        assert.strictEqual(events.length, 1)
        assert.include(asked, `http://${HOST}/feed`)
      })
    )
  )

  it.live("a host NO_PROXY names is reached directly", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FeedServer.make(feed("direct"))
        process.env.NO_PROXY = "127.0.0.1"
        const before = asked.length
        const events = yield* Preview.preview(connector, { feeds: [server.url("/feed")] }, 5, { timeout: "10 seconds" })
        delete process.env.NO_PROXY
        assert.strictEqual(events.length, 1)
        assert.strictEqual(asked.length, before)
      })
    )
  )
})
