/**
 * Outbound connections through the proxy the environment names, as curl and undici's
 * `EnvHttpProxyAgent` read it: `HTTPS_PROXY` (else `HTTP_PROXY`) for `https:`/`wss:` targets,
 * `HTTP_PROXY` for `http:`/`ws:`, lower-case names too; `NO_PROXY` lists hosts to reach directly
 * (`example.com` also matches its subdomains, `.example.com` and `*.example.com` only them,
 * `host:port` one port, `*` everything). The proxy is asked for a tunnel with `CONNECT host:port`
 * (credentials of the proxy URL as `Proxy-Authorization: Basic`); TLS to the target runs inside it.
 *
 * `Http` uses it for every request; a connector that opens its own sockets (a WebSocket gateway) hands
 * {@link connect} to its client so that it goes the same way.
 *
 * @since 0.2.0
 */
import * as Net from "node:net"
import * as Tls from "node:tls"

/** The environment read (default `process.env`). */
export type Env = Readonly<Record<string, string | undefined>>

const variable = (env: Env, name: string): string | undefined => {
  const value = env[name] ?? env[name.toLowerCase()]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

const secure = (protocol: string): boolean => protocol === "https:" || protocol === "wss:"

/** The port a URL reaches (its default when it names none). */
const portOf = (url: URL): number => (url.port !== "" ? Number(url.port) : secure(url.protocol) ? 443 : 80)

/** Whether `NO_PROXY` says to reach `url` directly. */
const bypass = (url: URL, env: Env): boolean => {
  const list = variable(env, "NO_PROXY")
  if (list === undefined) return false
  const host = url.hostname.replace(/^\[|\]$/gu, "").toLowerCase()
  const port = portOf(url)
  return list
    .split(/[\s,]+/u)
    .filter((entry) => entry !== "")
    .some((entry) => {
      if (entry === "*") return true
      const match = /^(.*?)(?::(\d+))?$/u.exec(entry.toLowerCase())!
      if (match[2] !== undefined && Number(match[2]) !== port) return false
      const name = match[1]!.replace(/^\[|\]$/gu, "")
      if (name.startsWith("*.") || name.startsWith(".")) return host.endsWith(name.replace(/^\*/u, ""))
      return host === name || host.endsWith(`.${name}`)
    })
}

/** The proxy to reach `url` through, or `undefined` to connect directly. */
export const proxyFor = (url: URL, env: Env = process.env): URL | undefined => {
  const named = secure(url.protocol)
    ? (variable(env, "HTTPS_PROXY") ?? variable(env, "HTTP_PROXY"))
    : variable(env, "HTTP_PROXY")
  if (named === undefined || bypass(url, env)) return undefined
  try {
    return new URL(named.includes("://") ? named : `http://${named}`)
  } catch {
    return undefined
  }
}

/** A proxy URL as messages show it: no credentials. */
const shownProxy = (proxy: URL): string => `${proxy.protocol}//${proxy.host}`

/**
 * Opens a TCP tunnel to `host:port` through `proxy` (`CONNECT`); resolves once the proxy answered 2xx.
 * A refusal fails naming the proxy and its status line, never its credentials.
 */
export const tunnel = (proxy: URL, host: string, port: number, signal?: AbortSignal): Promise<Net.Socket> =>
  new Promise((resolve, reject) => {
    const options = { host: proxy.hostname.replace(/^\[|\]$/gu, ""), port: portOf(proxy) }
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
      reject(new Error(`proxy ${shownProxy(proxy)}: ${message}`))
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
  const port = portOf(url)
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
