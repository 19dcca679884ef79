import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { createServer, request as httpRequest } from "node:http"
import { connect, type Socket } from "node:net"
import { fileURLToPath } from "node:url"
import { ApiConfig } from "../src/ApiConfig.ts"
import { HttpDispatcher, makeUnsafe } from "../src/HttpDispatcher.ts"
import { Transport } from "../src/Transport.ts"
import { ok, startServer } from "../src/testing/index.ts"

interface Proxy {
  readonly url: string
  /** The `host:port` of every request the proxy forwarded or tunnelled. */
  readonly targets: ReadonlyArray<string>
}

/**
 * An HTTP proxy on loopback, both kinds undici's `ProxyAgent` speaks: a request for an absolute
 * `http://` URL is forwarded, a CONNECT (for `https://`, or when tunnelling is asked) is tunnelled.
 */
const startProxy = Effect.acquireRelease(
  Effect.callback<{ readonly proxy: Proxy; readonly close: () => Promise<void> }>((resume) => {
    const targets: Array<string> = []
    const sockets = new Set<Socket>()
    const server = createServer((request, response) => {
      const target = URL.parse(request.url ?? "")
      if (target === null || target.protocol !== "http:") {
        response.writeHead(400)
        response.end()
        return
      }
      targets.push(target.host)
      const headers = { ...request.headers, host: target.host }
      const forwarded = httpRequest(target, { method: request.method, headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      })
      forwarded.on("error", () => response.destroy())
      request.pipe(forwarded)
    })
    server.on("connect", (request, client: Socket, head: Buffer) => {
      const target = request.url ?? ""
      targets.push(target)
      const port = Number(target.slice(target.lastIndexOf(":") + 1))
      const upstream = connect(port, target.slice(0, target.lastIndexOf(":")), () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
        upstream.write(head)
        upstream.pipe(client)
        client.pipe(upstream)
      })
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        socket.on("error", () => {
          client.destroy()
          upstream.destroy()
        })
      }
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const close = () =>
        new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy()
          server.closeAllConnections()
          server.close(() => done())
        })
      resume(Effect.succeed({ proxy: { url: `http://127.0.0.1:${port}`, targets }, close }))
    })
  }),
  ({ close }) => Effect.promise(close)
).pipe(Effect.map(({ proxy }) => proxy))

/** One call to `server` on a pool made by `makeUnsafe` for this environment. */
const callWith = (env: NodeJS.ProcessEnv, serverUrl: string) =>
  Effect.flatMap(Transport, (transport) => transport.send({ endpoint: "analyzeText", body: "{}" })).pipe(
    Effect.provide(
      Transport.layer.pipe(
        Layer.provide(
          Layer.effect(
            HttpDispatcher,
            Effect.acquireRelease(
              Effect.sync(() => makeUnsafe({}, env)),
              (dispatcher) => Effect.promise(() => dispatcher.destroy())
            )
          )
        ),
        Layer.provide(ApiConfig.layer({ apiKey: "test-key", baseUrls: { global: serverUrl } }))
      )
    )
  )

describe("HttpDispatcher", () => {
  it.live("sends through the proxy that HTTP_PROXY names", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok())
      const proxy = yield* startProxy
      const response = yield* callWith({ HTTP_PROXY: proxy.url }, server.url)
      assert.strictEqual(response.status, 200)
      assert.strictEqual(server.requests.length, 1)
      assert.deepStrictEqual(proxy.targets, [new URL(server.url).host])
    }).pipe(Effect.scoped)
  )

  it.live("goes direct to a host that NO_PROXY lists, and when no proxy is set", () =>
    Effect.gen(function* () {
      const server = yield* startServer(() => ok())
      const proxy = yield* startProxy
      yield* callWith({ HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1" }, server.url)
      yield* callWith({ HTTP_PROXY: "" }, server.url)
      assert.strictEqual(server.requests.length, 2)
      assert.deepStrictEqual(proxy.targets, [])
    }).pipe(Effect.scoped)
  )

  it("loads undici's agent and request API, not its index (fetch, WebSocket, the mock and cache agents)", () => {
    // In a process of its own: the modules a pool loads, and that it (and a proxied one) is made.
    const module = fileURLToPath(new URL("../src/HttpDispatcher.ts", import.meta.url))
    const script = `
      const { makeUnsafe } = await import(${JSON.stringify(module)})
      const { createRequire } = await import("node:module")
      const pools = [makeUnsafe({}, {}), makeUnsafe({}, { HTTPS_PROXY: "http://127.0.0.1:9" })]
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes("/undici/"))
      const api = pools.flatMap((p) => ["request", "stream", "pipeline", "connect", "upgrade"].map((m) => typeof p[m]))
      console.log(JSON.stringify({ names: pools.map((p) => p.constructor.name), loaded: loaded.length, api,
        index: loaded.some((f) => f.endsWith("/undici/index.js")) }))
      await Promise.all(pools.map((p) => p.destroy()))`
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
    const result = JSON.parse(out) as { names: Array<string>; loaded: number; api: Array<string>; index: boolean }
    assert.deepStrictEqual(result.names, ["Agent", "EnvHttpProxyAgent"])
    // What undici's index gives every dispatcher (a sink that calls `request` on the pool relies on it).
    assert.deepStrictEqual(result.api, Array(10).fill("function"))
    assert.isFalse(result.index)
    assert.isAbove(result.loaded, 0)
    assert.isBelow(result.loaded, 50)
  })
})
