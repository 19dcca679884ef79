/**
 * A forward proxy for tests, speaking both ways corporate proxies do: a `CONNECT host:port` is a
 * tunnel (what `https:` and `wss:` targets ask for), a request for an absolute `http://` URL is
 * forwarded (what `Http` sends for `http:` targets, as curl does). It records each and sends it to a
 * local server, so a test can give its client a host only the proxy can reach
 * (`api.warden-test.invalid`) and prove the client went through `HTTP(S)_PROXY`.
 *
 * ```ts
 * const proxy = await ConnectProxy.start(() => ({ host: "127.0.0.1", port: upstreamPort }))
 * process.env.HTTPS_PROXY = proxy.url
 * // ... then expect(proxy.tunnels).toEqual(["api.warden-test.invalid:8443"]); await proxy.close()
 * ```
 *
 * @since 0.2.0
 */
import { createServer, request } from "node:http"
import { type AddressInfo, connect } from "node:net"

/** A running proxy. */
export interface ConnectProxy {
  /** `http://127.0.0.1:PORT` */
  readonly url: string
  /** The `host:port` of every CONNECT, in order. */
  readonly tunnels: ReadonlyArray<string>
  /** The absolute URL of every request forwarded (`http://host:port/path?query`), in order. */
  readonly forwarded: ReadonlyArray<string>
  /** The `Proxy-Authorization` header of every CONNECT or forwarded request (`undefined` when none), in order. */
  readonly authorizations: ReadonlyArray<string | undefined>
  /** Stops it, closing open tunnels. */
  readonly close: () => Promise<void>
}

/** Starts a proxy on loopback whose tunnels go where `route(host, port)` says. */
export const start = async (
  route: (host: string, port: number) => { readonly host: string; readonly port: number }
): Promise<ConnectProxy> => {
  const tunnels: Array<string> = []
  const forwarded: Array<string> = []
  const authorizations: Array<string | undefined> = []
  const open = new Set<{ destroy: () => void }>()
  const server = createServer((req, res) => {
    const target = URL.parse(req.url ?? "")
    if (target === null || target.protocol !== "http:") {
      res.writeHead(400)
      res.end("a proxy is asked for absolute http:// URLs (or CONNECT)")
      return
    }
    forwarded.push(target.href)
    authorizations.push(req.headers["proxy-authorization"])
    const to = route(target.hostname.replace(/^\[|\]$/gu, ""), Number(target.port || 80))
    const headers = { ...req.headers }
    delete headers["proxy-authorization"]
    const upstream = request(
      { host: to.host, port: to.port, method: req.method, path: `${target.pathname}${target.search}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on("error", () => res.destroy())
    req.pipe(upstream)
  })
  server.on("connect", (req, socket, head) => {
    const authority = req.url ?? ""
    tunnels.push(authority)
    authorizations.push(req.headers["proxy-authorization"])
    const split = authority.lastIndexOf(":")
    const to = route(authority.slice(0, split).replace(/^\[|\]$/gu, ""), Number(authority.slice(split + 1)))
    const target = connect(to.port, to.host, () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
      target.write(head)
      target.pipe(socket)
      socket.pipe(target)
    })
    target.on("error", () => socket.destroy())
    socket.on("error", () => target.destroy())
    socket.on("close", () => target.destroy())
    open.add(socket)
    open.add(target)
    socket.on("close", () => open.delete(socket))
    target.on("close", () => open.delete(target))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    forwarded,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
