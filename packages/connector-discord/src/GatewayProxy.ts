/**
 * The gateway WebSocket through `HTTPS_PROXY`/`HTTP_PROXY` (`NO_PROXY` honoured), as the REST calls
 * go. `@discordjs/ws` opens its sockets with `ws` and takes no agent or connection option, so when a
 * proxy applies the gateway address it is given is a loopback bridge of this source
 * (`ws://127.0.0.1:PORT/<the real address, encoded>`): each WebSocket handshake it receives is sent on,
 * `Host` set back to the real host, over a socket from `Proxy.connect` (a CONNECT tunnel, TLS inside
 * for `wss:`), and the two sockets are joined. Without a proxy nothing is started and addresses are
 * left alone. The bridge listens on 127.0.0.1 only and forwards only to addresses it encoded itself.
 *
 * @since 0.2.0
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import type { Duplex } from "node:stream"
import { Proxy } from "@warden/connector"

/** A bridge, started on first use. */
export interface GatewayProxy {
  /** The address to give the WebSocket client for `url`: `url` itself unless a proxy applies. */
  readonly wrap: (url: string) => Promise<string>
  /** The real address of a wrapped one (anything else unchanged): what a checkpoint keeps. */
  readonly unwrap: (url: string) => string
  /** Stops the bridge and every connection through it. */
  readonly close: () => Promise<void>
}

const encode = (url: string): string => Buffer.from(url, "utf8").toString("base64url")
const decode = (path: string): string => Buffer.from(path, "base64url").toString("utf8")

/** Sends the handshake on to the real address through the proxy, then joins the sockets. */
const forward = async (
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  target: URL,
  open: Set<Duplex>,
  env: Proxy.Env
) => {
  const upstream: Socket = await Proxy.connect(target, { env })
  // the client left (or the bridge was closed) while the tunnel was being opened
  if (client.destroyed) {
    upstream.destroy()
    return
  }
  open.add(upstream)
  upstream.on("close", () => open.delete(upstream))
  const query = (req.url ?? "").includes("?") ? (req.url ?? "").slice((req.url ?? "").indexOf("?")) : ""
  const lines = [`GET ${target.pathname}${query} HTTP/1.1`, `Host: ${target.host}`]
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() !== "host") lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
  }
  upstream.write(`${lines.join("\r\n")}\r\n\r\n`)
  if (head.length > 0) upstream.write(head)
  upstream.pipe(client)
  client.pipe(upstream)
  upstream.on("error", () => client.destroy())
  client.on("close", () => upstream.destroy())
  upstream.on("close", () => client.destroy())
}

/** A bridge for one source; `env` is read at each `wrap` and each forwarded connection (default `process.env`). */
export const make = (env: Proxy.Env = process.env): GatewayProxy => {
  let server: Server | undefined
  let prefix = ""
  const open = new Set<Duplex>()
  /** The addresses this bridge handed out: it forwards to these only (no open relay on loopback). */
  const wrapped = new Set<string>()

  const start = async (): Promise<string> => {
    if (server !== undefined) return prefix
    const s = createServer((_req, res) => {
      res.writeHead(426)
      res.end("WebSocket upgrades only")
    })
    s.on("upgrade", (req, client, head) => {
      open.add(client)
      // from the start: a reset while the tunnel is being opened must not be an unhandled 'error'
      client.on("error", () => client.destroy())
      client.on("close", () => open.delete(client))
      const path = (req.url ?? "/").slice(1).split("?")[0]!
      let target: URL
      try {
        const address = decode(path)
        if (!wrapped.has(address)) throw new Error("not an address this bridge handed out")
        target = new URL(address)
      } catch {
        client.end("HTTP/1.1 404 Not Found\r\n\r\n")
        return
      }
      forward(req, client, head, target, open, env).catch((error: Error) => {
        // The client sees a failed handshake, reports a socket error and reconnects with backoff.
        client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n\r\n${error.message}`)
      })
    })
    server = s
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))
    prefix = `ws://127.0.0.1:${(s.address() as AddressInfo).port}/`
    return prefix
  }

  return {
    wrap: async (url) => {
      const parsed = new URL(url)
      if (Proxy.proxyFor(parsed, env) === undefined) return url
      wrapped.add(url)
      return `${await start()}${encode(url)}`
    },
    unwrap: (url) => (prefix !== "" && url.startsWith(prefix) ? decode(url.slice(prefix.length).split("?")[0]!) : url),
    close: async () => {
      for (const socket of open) socket.destroy()
      const s = server
      if (s === undefined) return
      s.closeAllConnections()
      await new Promise<void>((resolve) => s.close(() => resolve()))
    }
  }
}
