/**
 * Discord REST calls and the gateway WebSocket go through HTTP_PROXY when it is set, as the API
 * client's do: the proxy is asked for hosts only it can reach (REST requests to an http: fake
 * forwarded, the gateway in a CONNECT tunnel) and sends them on to the local fake.
 */
import { createServer, request } from "node:http"
import * as Net from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { ConnectProxy } from "@warden/connector/testing"
import { Duration, Effect, Redacted } from "effect"
import { afterAll, beforeAll, vi } from "vitest"
import * as DiscordRest from "../src/DiscordRest.ts"
import * as GatewayProxy from "../src/GatewayProxy.ts"
import { GUILD } from "./fixtures/FakeDiscord.ts"
import { configOf, fake, GENERAL, lastCheckpoint, ready, run, upserts } from "./fixtures/harness.ts"

const API_HOST = "discord.warden-test.invalid"
const GATEWAY_HOST = "gateway.warden-test.invalid"

/** Sends a WebSocket handshake to a `ws://` address: the answer's status (101 when upgraded, none when cut). */
const handshake = (url: string) =>
  new Promise<number | undefined>((resolve) => {
    const req = request(url.replace("ws:", "http:"), {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="
      }
    })
    req.on("response", (res) => resolve(res.statusCode))
    req.on("upgrade", () => resolve(101))
    req.on("error", () => resolve(undefined))
    req.end()
  })

describe("Discord behind a proxy", () => {
  /** Where the proxy's tunnels go: set by each test to its local server's port. */
  let port = 0
  let proxy: ConnectProxy.ConnectProxy
  beforeAll(async () => {
    proxy = await ConnectProxy.start(() => ({ host: "127.0.0.1", port }))
    vi.stubEnv("HTTP_PROXY", proxy.url)
    vi.stubEnv("NO_PROXY", undefined)
  })
  afterAll(async () => {
    vi.unstubAllEnvs()
    await proxy.close()
  })

  it("the gateway bridge forwards only to addresses it handed out (no open relay on loopback)", async () => {
    const bridge = GatewayProxy.make({ HTTP_PROXY: proxy.url })
    try {
      const real = `ws://${GATEWAY_HOST}:1`
      const local = await bridge.wrap(real)
      expect(local).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//u)
      expect(bridge.unwrap(local)).toBe(real)
      const other = Buffer.from("ws://elsewhere.warden-test.invalid:1", "utf8").toString("base64url")
      const before = proxy.tunnels.length
      const status = await handshake(`${local.slice(0, local.lastIndexOf("/") + 1)}${other}`)
      expect(status).toBe(404)
      expect(proxy.tunnels.length).toBe(before)
    } finally {
      await bridge.close()
    }
  })

  it("the gateway bridge connects through the proxy of the environment it was given", async () => {
    const bridge = GatewayProxy.make({ HTTP_PROXY: proxy.url })
    vi.stubEnv("HTTP_PROXY", undefined)
    try {
      const real = `ws://${GATEWAY_HOST}:1`
      // the proxy's tunnel leads nowhere (no gateway here): the handshake fails, but it was asked for
      await handshake(await bridge.wrap(real))
      expect(proxy.tunnels).toContain(`${GATEWAY_HOST}:1`)
    } finally {
      vi.stubEnv("HTTP_PROXY", proxy.url)
      await bridge.close()
    }
  })

  it("a client that leaves while the tunnel is being opened: no unhandled error, the tunnel is closed", async () => {
    // the gateway end: counts the tunnels that reach it and those closed since
    const gateway = { opened: 0, closed: 0 }
    const upstream = Net.createServer((socket) => {
      gateway.opened++
      socket.on("close", () => gateway.closed++)
      socket.on("error", () => {})
    })
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    // a proxy that takes 300 ms to open each tunnel
    const slow = createServer()
    slow.on("connect", (_req, socket) => {
      socket.on("error", () => {})
      setTimeout(() => {
        const target = Net.connect((upstream.address() as Net.AddressInfo).port, "127.0.0.1", () => {
          socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
          target.pipe(socket)
          socket.pipe(target)
        })
        target.on("error", () => {})
        socket.on("close", () => target.destroy())
        target.on("close", () => socket.destroy())
      }, 300)
    })
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve))
    const bridge = GatewayProxy.make({ HTTP_PROXY: `http://127.0.0.1:${(slow.address() as Net.AddressInfo).port}` })
    try {
      const local = new URL(await bridge.wrap(`ws://${GATEWAY_HOST}:1`))
      const client = Net.connect(Number(local.port), "127.0.0.1", () => {
        client.write(
          `GET ${local.pathname} HTTP/1.1\r\nHost: ${local.host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
        // a reset (RST) before the proxy has answered: the bridge's socket sees ECONNRESET
        setTimeout(() => client.resetAndDestroy(), 50)
      })
      client.on("error", () => {})
      for (let i = 0; i < 100 && gateway.closed === 0; i++) await new Promise((r) => setTimeout(r, 20))
      expect(gateway).toEqual({ opened: 1, closed: 1 })
    } finally {
      await bridge.close()
      slow.closeAllConnections()
      slow.close()
      upstream.close()
    }
  })

  it.live("GET /gateway/bot reaches a host only the proxy can reach", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        port = Number(new URL(f.apiBaseUrl).port)
        const rest = yield* DiscordRest.make({
          token: Redacted.make(f.token),
          apiBaseUrl: `http://${API_HOST}:${port}/api`,
          requestTimeout: Duration.seconds(5),
          retries: 0
        })
        const answer = yield* rest.call("gateway", (api) => api.gateway.getBot())
        expect(answer.url).toBe(f.url)
        // an http: target, so forwarded (an https: one, as discord.com is, is tunnelled)
        expect(proxy.forwarded.at(-1)).toBe(`http://${API_HOST}:${port}/api/v10/gateway/bot`)
        expect(f.requests.at(-1)).toEqual({ method: "GET", path: "/gateway/bot", status: 200 })
      })
    )
  )

  it.live("the gateway WebSocket goes through the proxy too; the checkpoint keeps the real resume address", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake({ gatewayHost: GATEWAY_HOST })
        port = Number(new URL(f.apiBaseUrl).port)
        const source = yield* run(configOf(f, { apiBaseUrl: `http://${API_HOST}:${port}/api` }))
        yield* ready(f)
        const message = f.post(GENERAL, { content: "through the proxy" })
        const reference = `discord:${GUILD}/${GENERAL}/${message.id}`
        yield* source.until((es) => upserts(es).some((e) => e.reference === reference), "the message")
        expect(proxy.tunnels).toContain(`${GATEWAY_HOST}:${port}`)
        expect(f.stats.identifies).toBe(1)
        const checkpoint = lastCheckpoint(source.events) as { session?: { resumeUrl: string } }
        expect(checkpoint.session?.resumeUrl).toBe(`ws://${GATEWAY_HOST}:${port}`)
      })
    )
  )
})
