/**
 * `Http` and `Proxy.connect` go through HTTP_PROXY / HTTPS_PROXY when set (`http:` forwarded, `https:`
 * in a CONNECT tunnel), and straight to hosts NO_PROXY names: a host only the proxy can reach proves the
 * way taken. The rules themselves are `@warden/core/proxy`'s (tested there); the last test here shows
 * undici's pool and `Proxy.proxyFor` follow them alike.
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo, LookupFunction } from "node:net"
import * as Tls from "node:tls"
import { assert, describe, it } from "@effect/vitest"
import * as OutboundProxy from "@warden/core/proxy"
import { Http, Proxy } from "@warden/connector"
import { ConnectProxy } from "@warden/connector/testing"
import { Effect, Schema } from "effect"
import { afterAll, beforeAll, vi } from "vitest"

describe("Http through a proxy", () => {
  const HOST = "api.warden-test.invalid"
  const seen: Array<{ url: string; host: string | undefined }> = []
  const upstream = createServer((req, res) => {
    seen.push({ url: req.url ?? "", host: req.headers.host })
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ items: [1, 2] }))
  })
  let proxy: ConnectProxy.ConnectProxy
  let port = 0
  beforeAll(async () => {
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    port = (upstream.address() as AddressInfo).port
    proxy = await ConnectProxy.start(() => ({ host: "127.0.0.1", port }))
  })
  afterAll(async () => {
    vi.unstubAllEnvs()
    await proxy.close()
    upstream.closeAllConnections()
    await new Promise<void>((resolve) => upstream.close(() => resolve()))
  })
  const Items = Schema.Struct({ items: Schema.Array(Schema.Number) })

  it.live("a request to an http host only the proxy can reach is forwarded by it, credentials sent to the proxy", () =>
    Effect.gen(function* () {
      const u = new URL(proxy.url)
      u.username = "warden"
      u.password = "proxy pass"
      vi.stubEnv("HTTP_PROXY", u.href)
      vi.stubEnv("NO_PROXY", undefined)
      const answer = yield* Http.getJson("hn", Items, {
        url: `http://${HOST}:${port}/items?after=3`,
        timeout: "5 seconds"
      })
      assert.deepStrictEqual(answer, { items: [1, 2] })
      assert.strictEqual(proxy.forwarded.at(-1), `http://${HOST}:${port}/items?after=3`)
      assert.strictEqual(proxy.authorizations.at(-1), `Basic ${Buffer.from("warden:proxy pass").toString("base64")}`)
      assert.deepStrictEqual(seen.at(-1), { url: "/items?after=3", host: `${HOST}:${port}` })
    })
  )

  it.live("NO_PROXY hosts are reached directly", () =>
    Effect.gen(function* () {
      vi.stubEnv("HTTP_PROXY", proxy.url)
      vi.stubEnv("NO_PROXY", "127.0.0.1")
      const before = proxy.tunnels.length + proxy.forwarded.length
      const answer = yield* Http.getJson("hn", Items, { url: `http://127.0.0.1:${port}/direct`, timeout: "5 seconds" })
      assert.deepStrictEqual(answer, { items: [1, 2] })
      assert.strictEqual(proxy.tunnels.length + proxy.forwarded.length, before)
      assert.strictEqual(seen.at(-1)?.url, "/direct")
    })
  )

  it.live("a proxy that refuses the tunnel is an Unavailable error naming the proxy, not its credentials", () =>
    Effect.gen(function* () {
      const refusing = createServer()
      refusing.on("connect", (_req, socket) => socket.end("HTTP/1.1 403 Forbidden\r\n\r\n"))
      yield* Effect.promise(() => new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve)))
      const at = `127.0.0.1:${(refusing.address() as AddressInfo).port}`
      vi.stubEnv("HTTPS_PROXY", `http://user:sekrit@${at}`)
      vi.stubEnv("NO_PROXY", undefined)
      const error = yield* Effect.flip(Http.getJson("hn", Items, { url: `https://${HOST}/x`, timeout: "5 seconds" }))
      refusing.close()
      assert.strictEqual(error.reason, "Unavailable")
      assert.include(error.message, `proxy http://${at}: CONNECT ${HOST}:443 refused: 403`)
      assert.notInclude(error.message, "sekrit")
    })
  )

  it("a proxy that hangs up without answering the CONNECT fails the connection at once", async () => {
    const hanging = createServer()
    hanging.on("connect", (_req, socket) => socket.destroy())
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve))
    const at = `127.0.0.1:${(hanging.address() as AddressInfo).port}`
    try {
      const outcome = await Promise.race([
        Proxy.connect(new URL(`http://${HOST}/x`), { env: { HTTP_PROXY: `http://${at}` } }).then(
          (socket) => {
            socket.destroy()
            return "connected"
          },
          (error: Error) => error.message
        ),
        new Promise<string>((resolve) => setTimeout(resolve, 2_000, "still waiting after 2 s"))
      ])
      assert.strictEqual(outcome, `proxy http://${at}: closed the connection before answering CONNECT ${HOST}:80`)
    } finally {
      hanging.close()
    }
  })
})

describe("Http to an https host through a proxy", () => {
  // A certificate for api.warden-test.invalid, trusted for this test only: the answer decodes only if
  // TLS ran inside the tunnel with the target's name (SNI and the certificate check).
  const tls = new URL("./fixtures/tls/", import.meta.url)
  const cert = readFileSync(new URL("cert.pem", tls), "utf8")
  const upstream = createHttpsServer({ cert, key: readFileSync(new URL("key.pem", tls), "utf8") }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ items: [7] }))
  })
  let proxy: ConnectProxy.ConnectProxy
  let port = 0
  const trusted = Tls.getCACertificates("default")
  beforeAll(async () => {
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    port = (upstream.address() as AddressInfo).port
    proxy = await ConnectProxy.start(() => ({ host: "127.0.0.1", port }))
    Tls.setDefaultCACertificates([...trusted, cert])
  })
  afterAll(async () => {
    Tls.setDefaultCACertificates(trusted)
    vi.unstubAllEnvs()
    await proxy.close()
    upstream.closeAllConnections()
    await new Promise<void>((resolve) => upstream.close(() => resolve()))
  })

  it.live("goes through HTTPS_PROXY with TLS to the target inside the tunnel", () =>
    Effect.gen(function* () {
      vi.stubEnv("HTTPS_PROXY", proxy.url)
      vi.stubEnv("NO_PROXY", undefined)
      const Items = Schema.Struct({ items: Schema.Array(Schema.Number) })
      const answer = yield* Http.getJson("hn", Items, {
        url: `https://api.warden-test.invalid:${port}/items`,
        timeout: "5 seconds"
      })
      assert.deepStrictEqual(answer, { items: [7] })
      assert.strictEqual(proxy.tunnels.at(-1), `api.warden-test.invalid:${port}`)
    })
  )
})

describe("NO_PROXY takes requests and tunnels the same way", () => {
  // Every name resolves to the local server, so that a request sent direct is answered by it and one
  // sent to the proxy is recorded there: the way undici's pool took, beside the way `Proxy.proxyFor`
  // (the WebSocket tunnel's rule) says.
  const direct: Array<string> = []
  const server = createServer((req, res) => {
    direct.push(req.headers.host ?? "")
    res.end("ok")
  })
  let proxy: ConnectProxy.ConnectProxy
  let port = 0
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as AddressInfo).port
    proxy = await ConnectProxy.start(() => ({ host: "127.0.0.1", port }))
  })
  afterAll(async () => {
    await proxy.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const cases: ReadonlyArray<readonly [noProxy: string, host: string]> = [
    ["example.com", "example.com"],
    ["example.com", "api.example.com"],
    ["example.com", "notexample.com"],
    [".example.com", "example.com"],
    [".example.com", "api.example.com"],
    ["*.example.com", "example.com"],
    ["*.example.com", "deep.api.example.com"],
    ["EXAMPLE.com.", "api.example.com"],
    ["other.test *", "anything.test"],
    ["127.0.0.1:{port}", "127.0.0.1"],
    ["127.0.0.1:1", "127.0.0.1"],
    ["*:{port}", "any.test"],
    ["localhost, other.test", "other.test"],
    ["", "example.com"]
  ]

  it.live("for each NO_PROXY entry kind, as Proxy.proxyFor says", () =>
    Effect.gen(function* () {
      const { Agent, EnvHttpProxyAgent, request } = yield* Effect.promise(() => import("undici"))
      const lookup = ((_host: string, options: unknown, done: (...args: Array<unknown>) => void) =>
        (options as { all?: boolean }).all === true
          ? done(null, [{ address: "127.0.0.1", family: 4 }])
          : done(null, "127.0.0.1", 4)) as unknown as LookupFunction
      for (const [list, host] of cases) {
        const env = { HTTP_PROXY: proxy.url, NO_PROXY: list.replace("{port}", String(port)) }
        const url = new URL(`http://${host}:${port}/`)
        const options = OutboundProxy.agentOptions(env)
        const pool = options === undefined ? new Agent() : new EnvHttpProxyAgent({ ...options, connect: { lookup } })
        const before = proxy.forwarded.length
        yield* Effect.promise(() => request(url, { dispatcher: pool }).then((answer) => answer.body.text()))
        yield* Effect.promise(() => pool.destroy())
        assert.strictEqual(
          proxy.forwarded.length > before,
          Proxy.proxyFor(url, env) !== undefined,
          `NO_PROXY=${env.NO_PROXY} ${host}`
        )
      }
      assert.isAbove(direct.length, 0)
      assert.isAbove(proxy.forwarded.length, 0)
    })
  )
})
