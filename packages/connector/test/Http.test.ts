/** `Http.client` and `Http.pool`: the HTTP stack connectors send on, against a real server on loopback. */
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import * as Zlib from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { Http } from "@warden/connector"
import { ConnectProxy } from "@warden/connector/testing"
import { Effect, Stream } from "effect"
import { HttpClientRequest } from "effect/http"

/** A server in the test's scope: `/gzip` answers compressed, `/moved` redirects; each request's User-Agent is kept. */
const server = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly agents: Array<string | undefined>; readonly http: NodeHttp.Server }>(
    (resume) => {
      const agents: Array<string | undefined> = []
      const http = NodeHttp.createServer((req, res) => {
        agents.push(req.headers["user-agent"])
        if (req.url === "/moved") res.writeHead(302, { location: "/gzip" }).end()
        else if (req.url === "/gzip") {
          res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" })
          res.end(Zlib.gzipSync("a".repeat(1000)))
        } else res.end("plain")
      })
      http.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, agents, http }))
      )
    }
  ),
  ({ http }) =>
    Effect.callback<void>((resume) => {
      http.close(() => resume(Effect.void))
    })
)

const openConnections = (http: NodeHttp.Server) =>
  Effect.callback<number>((resume) => {
    http.getConnections((_, n) => resume(Effect.succeed(n)))
  })

describe("Http.client", () => {
  it.live(
    "sends its User-Agent, answers a redirect without following it, decompresses, and closes with its scope",
    () =>
      Effect.gen(function* () {
        const { url, agents, http } = yield* server
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* Http.client({ userAgent: "warden-test/1", env: {} })
            const moved = yield* client.execute(HttpClientRequest.get(`${url}/moved`))
            assert.strictEqual(moved.status, 302)
            assert.strictEqual(moved.headers.location, "/gzip")
            const body = yield* client.execute(HttpClientRequest.get(`${url}/gzip`)).pipe(Effect.flatMap((r) => r.text))
            assert.strictEqual(body, "a".repeat(1000))
            yield* client.execute(HttpClientRequest.get(url, { headers: { "user-agent": "own/2" } }))
            assert.deepStrictEqual(agents, ["warden-test/1", "warden-test/1", "own/2"])
            // keep-alive: the pool holds its connection while the scope is open
            assert.isAbove(yield* openConnections(http), 0)
          })
        )
        for (let i = 0; i < 40 && (yield* openConnections(http)) > 0; i++) yield* Effect.sleep("25 millis")
        assert.strictEqual(yield* openConnections(http), 0, "a connection outlived the client's scope")
      }).pipe(Effect.scoped)
  )

  it.live("reads a body up to a cap, and no further", () =>
    Effect.gen(function* () {
      const { url } = yield* server
      const client = yield* Http.client({ env: {} })
      const response = yield* client.execute(HttpClientRequest.get(`${url}/gzip`))
      const error = yield* Effect.flip(Http.readBody(response.stream, 999))
      assert.deepStrictEqual(error, new Http.BodyTooLarge({ maxBytes: 999 }))
      const small = yield* Http.readBody(Stream.make(new Uint8Array([1, 2]), new Uint8Array([3])), 3)
      assert.deepStrictEqual([...small], [1, 2, 3])
    }).pipe(Effect.scoped)
  )
})

describe("Http.pool", () => {
  it.live("its fetch goes through the proxy of the environment it was given", () =>
    Effect.gen(function* () {
      const { url } = yield* server
      const port = Number(new URL(url).port)
      const proxy = yield* Effect.acquireRelease(
        Effect.promise(() => ConnectProxy.start(() => ({ host: "127.0.0.1", port }))),
        (p) => Effect.promise(() => p.close())
      )
      const pool = yield* Http.pool({ env: { HTTP_PROXY: proxy.url } })
      const answer = yield* Effect.promise(() =>
        pool.fetch(`http://only-the-proxy.warden-test.invalid:${port}/x`).then((r) => r.text())
      )
      assert.strictEqual(answer, "plain")
      assert.deepStrictEqual(proxy.forwarded, [`http://only-the-proxy.warden-test.invalid:${port}/x`])
    }).pipe(Effect.scoped)
  )
})
