/** How the environment's proxy variables are read: which proxy a target goes through, and which not. */
import * as OutboundProxy from "@warden/core/proxy"
import { assert, describe, it } from "vitest"

const env = { HTTP_PROXY: "http://proxy:3128", HTTPS_PROXY: "http://secure-proxy:3129" }
const via = (url: string, extra: OutboundProxy.Env = {}) =>
  OutboundProxy.proxyFor(new URL(url), { ...env, ...extra })?.host

describe("OutboundProxy.proxyFor", () => {
  it("takes HTTPS_PROXY for https and wss, HTTP_PROXY for http and ws", () => {
    assert.strictEqual(via("https://a.example.com/x"), "secure-proxy:3129")
    assert.strictEqual(via("wss://gateway.example.com/"), "secure-proxy:3129")
    assert.strictEqual(via("http://a.example.com/x"), "proxy:3128")
    assert.strictEqual(via("ws://a.example.com/x"), "proxy:3128")
  })

  it("reads lower-case names first, HTTP_PROXY for https when HTTPS_PROXY is unset, blank as unset", () => {
    const https = new URL("https://a.example.com")
    assert.strictEqual(
      OutboundProxy.proxyFor(https, { https_proxy: "http://low:1", HTTPS_PROXY: "http://up:2" })?.host,
      "low:1"
    )
    assert.strictEqual(OutboundProxy.proxyFor(https, { HTTPS_PROXY: "http://up:2" })?.host, "up:2")
    assert.strictEqual(OutboundProxy.proxyFor(https, { HTTP_PROXY: "http://only:1" })?.host, "only:1")
    assert.strictEqual(OutboundProxy.proxyFor(https, { HTTPS_PROXY: " ", HTTP_PROXY: "http://only:1" })?.host, "only:1")
    assert.strictEqual(OutboundProxy.proxyFor(https, {}), undefined)
    assert.isFalse(OutboundProxy.configured({ HTTP_PROXY: "", https_proxy: "  ", NO_PROXY: "*" }))
    assert.isTrue(OutboundProxy.configured({ https_proxy: "http://low:1" }))
  })

  it("takes a proxy named without a scheme as http://", () => {
    assert.strictEqual(
      OutboundProxy.proxyFor(new URL("http://a.example/"), { HTTP_PROXY: "proxy:3128" })?.href,
      "http://proxy:3128/"
    )
    assert.deepStrictEqual(OutboundProxy.settings({ HTTP_PROXY: "proxy:3128", no_proxy: "localhost" }), {
      httpProxy: "http://proxy:3128",
      httpsProxy: "http://proxy:3128",
      noProxy: "localhost"
    })
  })

  it("reaches NO_PROXY hosts directly: a name or .name with its subdomains, *.name only them, host:port, *", () => {
    const direct = (list: string, url: string) => via(url, { NO_PROXY: list }) === undefined
    assert.isTrue(direct("example.com", "https://example.com/"))
    assert.isTrue(direct("example.com", "https://api.example.com/"))
    assert.isFalse(direct("example.com", "https://notexample.com/"))
    assert.isTrue(direct(".example.com", "https://api.example.com/"))
    assert.isTrue(direct(".example.com", "https://example.com/"))
    assert.isFalse(direct(".example.com", "https://example.org/"))
    assert.isTrue(direct("*.example.com", "https://api.example.com/"))
    assert.isFalse(direct("*.example.com", "https://example.com/"))
    assert.isTrue(direct("localhost,127.0.0.1:8080", "http://127.0.0.1:8080/"))
    assert.isFalse(direct("127.0.0.1:8080", "http://127.0.0.1:9090/"))
    assert.isTrue(direct("example.com:443", "https://example.com/"))
    assert.isTrue(direct("EXAMPLE.com.", "https://Api.Example.COM/"))
    assert.isTrue(direct("::1", "http://[::1]:8080/"))
    assert.isTrue(direct("[::1]:8080", "http://[::1]:8080/"))
    assert.isFalse(direct("[::1]:8080", "http://[::1]:9090/"))
    assert.isTrue(direct("other.test *", "https://anything.example/"))
    assert.isTrue(direct("*:80", "http://anything.example/"))
    assert.isFalse(direct("*:80", "https://anything.example/"))
    assert.isTrue(via("https://example.com/", { no_proxy: "example.com", NO_PROXY: "other.test" }) === undefined)
  })

  it("shows a proxy without its credentials", () => {
    assert.strictEqual(OutboundProxy.shown(new URL("http://user:secret@proxy:3128/")), "http://proxy:3128")
  })
})
