/**
 * `Http` and `Proxy.connect` go through HTTP_PROXY / HTTPS_PROXY (a CONNECT tunnel) when set, and
 * straight to hosts NO_PROXY names: a host only the proxy can reach proves the way taken.
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo } from "node:net"
import * as Tls from "node:tls"
import { assert, describe, it } from "@effect/vitest"
import { Http, Proxy } from "@warden/connector"
import { ConnectProxy } from "@warden/connector/testing"
import { Effect, Schema } from "effect"
import { afterAll, beforeAll, vi } from "vitest"

describe("Proxy.proxyFor", () => {
  const env = { HTTP_PROXY: "http://proxy:3128", HTTPS_PROXY: "http://secure-proxy:3129", NO_PROXY: "" }
  const via = (url: string, extra: Record<string, string> = {}) =>
    Proxy.proxyFor(new URL(url), { ...env, ...extra })?.host
  it("takes HTTPS_PROXY for https and wss, HTTP_PROXY for http and ws, lower-case names too", () => {
    assert.strictEqual(via("https://a.example.com/x"), "secure-proxy:3129")
    assert.strictEqual(via("wss://gateway.example.com/"), "secure-proxy:3129")
    assert.strictEqual(via("http://a.example.com/x"), "proxy:3128")
    assert.strictEqual(via("ws://a.example.com/x"), "proxy:3128")
    assert.strictEqual(Proxy.proxyFor(new URL("https://a.example.com"), { https_proxy: "http://low:1" })?.host, "low:1")
    assert.strictEqual(
      Proxy.proxyFor(new URL("https://a.example.com"), { HTTP_PROXY: "http://only:1" })?.host,
      "only:1"
    )
    assert.strictEqual(Proxy.proxyFor(new URL("https://a.example.com"), {}), undefined)
  })
  it("reaches NO_PROXY hosts directly: a name and its subdomains, .suffix, host:port, *", () => {
    const no = (list: string, url: string) => via(url, { NO_PROXY: list }) === undefined
    assert.isTrue(no("example.com", "https://example.com/"))
    assert.isTrue(no("example.com", "https://api.example.com/"))
    assert.isFalse(no("example.com", "https://notexample.com/"))
    assert.isTrue(no(".example.com", "https://api.example.com/"))
    assert.isFalse(no(".example.com", "https://example.org/"))
    assert.isTrue(no("*.example.com", "https://api.example.com/"))
    assert.isTrue(no("localhost,127.0.0.1:8080", "http://127.0.0.1:8080/"))
    assert.isFalse(no("127.0.0.1:8080", "http://127.0.0.1:9090/"))
    assert.isTrue(no("*", "https://anything.example/"))
  })
})

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

  it.live(
    "a request to a host only the proxy can reach goes through a CONNECT tunnel, credentials sent to the proxy",
    () =>
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
        assert.strictEqual(proxy.tunnels.at(-1), `${HOST}:${port}`)
        assert.strictEqual(proxy.authorizations.at(-1), `Basic ${Buffer.from("warden:proxy pass").toString("base64")}`)
        assert.deepStrictEqual(seen.at(-1), { url: "/items?after=3", host: `${HOST}:${port}` })
      })
  )

  it.live("NO_PROXY hosts are reached directly", () =>
    Effect.gen(function* () {
      vi.stubEnv("HTTP_PROXY", proxy.url)
      vi.stubEnv("NO_PROXY", "127.0.0.1")
      const before = proxy.tunnels.length
      const answer = yield* Http.getJson("hn", Items, { url: `http://127.0.0.1:${port}/direct`, timeout: "5 seconds" })
      assert.deepStrictEqual(answer, { items: [1, 2] })
      assert.strictEqual(proxy.tunnels.length, before)
      assert.strictEqual(seen.at(-1)?.url, "/direct")
    })
  )

  it.live("a proxy that refuses the tunnel is an Unavailable error naming the proxy, not its credentials", () =>
    Effect.gen(function* () {
      const refusing = createServer()
      refusing.on("connect", (_req, socket) => socket.end("HTTP/1.1 403 Forbidden\r\n\r\n"))
      yield* Effect.promise(() => new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve)))
      const at = `127.0.0.1:${(refusing.address() as AddressInfo).port}`
      vi.stubEnv("HTTP_PROXY", `http://user:sekrit@${at}`)
      vi.stubEnv("NO_PROXY", undefined)
      const error = yield* Effect.flip(Http.getJson("hn", Items, { url: `http://${HOST}/x`, timeout: "5 seconds" }))
      refusing.close()
      assert.strictEqual(error.reason, "Unavailable")
      assert.include(error.message, `proxy http://${at}: CONNECT ${HOST}:80 refused: HTTP/1.1 403 Forbidden`)
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
