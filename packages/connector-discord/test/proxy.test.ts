/**
 * Discord REST calls go through HTTP_PROXY when it is set, as the API client's do: the proxy (a
 * CONNECT tunnel, as undici uses) is asked for a host only it can reach and tunnels to a local fake.
 */
import { createServer } from "node:http"
import { connect, type AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Redacted } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as DiscordRest from "../src/DiscordRest.ts"

describe("Discord REST behind a proxy", () => {
  const tunnels: Array<string> = []
  const requests: Array<{ url: string; authorization: string | undefined }> = []
  const upstream = createServer((req, res) => {
    requests.push({ url: req.url ?? "", authorization: req.headers.authorization })
    req.resume()
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ url: "wss://gateway.invalid", shards: 1, session_start_limit: {} }))
  })
  const proxy = createServer()
  proxy.on("connect", (req, socket, head) => {
    tunnels.push(req.url ?? "")
    const target = connect((upstream.address() as AddressInfo).port, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
      target.write(head)
      target.pipe(socket)
      socket.pipe(target)
    })
    target.on("error", () => socket.destroy())
    socket.on("error", () => target.destroy())
  })
  const saved = process.env.HTTP_PROXY
  beforeAll(async () => {
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    if (saved === undefined) delete process.env.HTTP_PROXY
    else process.env.HTTP_PROXY = saved
    proxy.closeAllConnections()
    upstream.closeAllConnections()
    await new Promise<void>((resolve) => proxy.close(() => resolve()))
    await new Promise<void>((resolve) => upstream.close(() => resolve()))
  })

  it.live("GET /gateway/bot reaches a host only the proxy can reach", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const rest = yield* DiscordRest.make({
          token: Redacted.make("bot-token"),
          apiBaseUrl: "http://discord.warden-test.invalid:8080/api",
          requestTimeout: Duration.seconds(5),
          retries: 0
        })
        const answer = yield* rest.call("gateway", (api) => api.gateway.getBot())
        expect(answer.url).toBe("wss://gateway.invalid")
        expect(tunnels.at(-1)).toBe("discord.warden-test.invalid:8080")
        expect(requests.at(-1)).toEqual({ url: "/api/v10/gateway/bot", authorization: "Bot bot-token" })
      })
    )
  )
})
