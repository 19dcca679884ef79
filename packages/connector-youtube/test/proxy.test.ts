/** YouTube Data API calls go through HTTP_PROXY when it is set, as the API client's do. */
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Preview } from "@warden/connector"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { connector } from "../src/index.ts"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"

const HOST = "youtube.warden-test.invalid"

describe("YouTube behind a proxy", () => {
  let upstream = ""
  const asked: Array<string> = []
  // A forwarding proxy: asked for http://youtube.warden-test.invalid/..., it fetches the fake's same path.
  const proxy = createServer((req, res) => {
    asked.push(req.url ?? "")
    const target = new URL(new URL(req.url ?? "/").pathname + new URL(req.url ?? "/").search, upstream)
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
  const saved = process.env.HTTP_PROXY
  beforeAll(async () => {
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    if (saved === undefined) delete process.env.HTTP_PROXY
    else process.env.HTTP_PROXY = saved
    proxy.closeAllConnections()
    await new Promise<void>((resolve) => proxy.close(() => resolve()))
  })

  it.live("a preview reads the comments through the proxy, from a host only the proxy can reach", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        upstream = new URL(fake.apiBaseUrl).origin
        fake.add({ text: "via the proxy" })
        const events = yield* Preview.preview(
          connector,
          {
            videoIds: [FakeYouTube.videoA],
            apiKey: fake.keyConfig.apiKey,
            apiBaseUrl: `http://${HOST}/youtube/v3`,
            tokenUrl: `http://${HOST}/token`
          },
          5,
          { timeout: "10 seconds" }
        )
        assert.deepStrictEqual(
          events.map((e) => (e.kind === "upsert" && e.content.type === "text" ? e.content.text : e.kind)),
          ["via the proxy"]
        )
        assert.isTrue(asked.some((u) => u.startsWith(`http://${HOST}/youtube/v3/commentThreads`)))
      })
    )
  )
})
