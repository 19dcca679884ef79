/**
 * Sockets through the proxy the environment names, for a client that opens its own (a WebSocket
 * gateway: `ws` takes no HTTP agent): which proxy and which hosts go direct are `@warden/core/proxy`'s
 * rules, the ones `Http`'s pool follows, so a connector's requests and its sockets take the same way.
 * The proxy is asked for a tunnel with `CONNECT host:port` (credentials of the proxy URL as
 * `Proxy-Authorization: Basic`); TLS to the target runs inside it.
 *
 * @since 0.2.0
 */
import * as Net from "node:net"
import * as Tls from "node:tls"
import * as OutboundProxy from "@warden/core/proxy"

/** The environment read (default `process.env`). */
export type Env = OutboundProxy.Env

/** The proxy to reach `url` through, or `undefined` to connect directly (`@warden/core/proxy`'s rules). */
export const proxyFor: (url: URL, env?: Env) => URL | undefined = OutboundProxy.proxyFor

const secure = (protocol: string): boolean => protocol === "https:" || protocol === "wss:"

/**
 * Opens a TCP tunnel to `host:port` through `proxy` (`CONNECT`); resolves once the proxy answered 2xx.
 * A refusal fails naming the proxy and its status line, never its credentials.
 */
export const tunnel = (proxy: URL, host: string, port: number, signal?: AbortSignal): Promise<Net.Socket> =>
  new Promise((resolve, reject) => {
    const options = { host: proxy.hostname.replace(/^\[|\]$/gu, ""), port: OutboundProxy.portOf(proxy) }
    const socket =
      proxy.protocol === "https:" ? Tls.connect({ ...options, servername: options.host }) : Net.connect(options)
    const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`
    const auth =
      proxy.username !== ""
        ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}\r\n`
        : ""
    let answer = Buffer.alloc(0)
    const fail = (message: string) => {
      socket.destroy()
      reject(new Error(`proxy ${OutboundProxy.shown(proxy)}: ${message}`))
    }
    const onAbort = () => fail("aborted")
    signal?.addEventListener("abort", onAbort, { once: true })
    // Read in paused mode ('readable', as https-proxy-agent does): the socket is handed over unread.
    const onReadable = () => {
      for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null)
        answer = Buffer.concat([answer, chunk])
      const end = answer.indexOf("\r\n\r\n")
      if (end === -1) {
        if (answer.length > 16 * 1024) fail("answer to CONNECT too large")
        return
      }
      socket.off("readable", onReadable)
      socket.off("error", onError)
      socket.off("close", onClose)
      signal?.removeEventListener("abort", onAbort)
      const status = answer.subarray(0, answer.indexOf("\r\n")).toString("latin1")
      if (!/^HTTP\/1\.[01] 2\d\d/u.test(status)) return fail(`CONNECT ${authority} refused: ${status}`)
      // Bytes after the answer belong to the target: hand them back to whoever reads next.
      const rest = answer.subarray(end + 4)
      if (rest.length > 0) socket.unshift(rest)
      resolve(socket)
    }
    const onError = (error: Error) => fail(error.message)
    // A proxy that hangs up without answering (its own upstream refused) emits no error: only this.
    const onClose = () => fail(`closed the connection before answering CONNECT ${authority}`)
    socket.on("readable", onReadable)
    socket.on("error", onError)
    socket.on("close", onClose)
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`)
  })

/**
 * Connects to `url`'s host and port the way the environment says (directly, or tunnelled through the
 * proxy), with TLS for `https:`/`wss:` (SNI: the target's name). The socket is ready to speak HTTP.
 */
export const connect = async (url: URL, options: { readonly env?: Env; readonly signal?: AbortSignal } = {}) => {
  const host = url.hostname.replace(/^\[|\]$/gu, "")
  const port = OutboundProxy.portOf(url)
  const proxy = proxyFor(url, options.env)
  const servername = Net.isIP(host) === 0 ? host : undefined
  if (proxy === undefined) {
    return secure(url.protocol)
      ? Tls.connect({ host, port, ...(servername === undefined ? {} : { servername }) })
      : Net.connect({ host, port })
  }
  const raw = await tunnel(proxy, host, port, options.signal)
  return secure(url.protocol) ? Tls.connect({ socket: raw, ...(servername === undefined ? {} : { servername }) }) : raw
}
