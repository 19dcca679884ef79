/**
 * The one reading of the outbound proxy settings of the environment, for every Warden client that
 * opens connections (the API client's undici pool, the connector SDK's `Http` and the Discord gateway's
 * CONNECT tunnel), so that one `HTTP_PROXY`/`HTTPS_PROXY`/`NO_PROXY` means the same thing everywhere.
 *
 * - `HTTPS_PROXY` for `https:`/`wss:` targets (else `HTTP_PROXY`), `HTTP_PROXY` for `http:`/`ws:`;
 *   the lower-case name wins over the upper-case one, as curl and undici read them; an empty value is
 *   unset; a proxy named without a scheme (`proxy:3128`) is `http://proxy:3128`.
 * - `NO_PROXY` (comma or space separated) names the hosts reached directly: `example.com` and
 *   `.example.com` match that name and its subdomains, `*.example.com` only its subdomains,
 *   `host:port` (`[::1]:443` for IPv6) one port of it, `*` every host. Names compare without case and
 *   without a trailing dot. These are undici 8's `EnvHttpProxyAgent` rules, so the pool that is given
 *   {@link settings} and the tunnel that asks {@link proxyFor} take the same way for every host.
 *
 * Free of dependencies (no Effect, no Node module), so that the transport and the connector SDK can
 * both import it (`@warden/core/proxy`) without loading anything else.
 *
 * @since 0.1.0
 */

/** The variables that name a proxy (those of `NO_PROXY` only exempt hosts from one). */
export const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] as const

/** The environment read (default `process.env`). */
export type Env = Readonly<Record<string, string | undefined>>

/** The proxy settings of an environment, as undici's `EnvHttpProxyAgent` takes them. */
export interface Settings {
  /** The proxy of `http:`/`ws:` targets, when one is set. */
  readonly httpProxy: string | undefined
  /** The proxy of `https:`/`wss:` targets (`HTTP_PROXY` when `HTTPS_PROXY` is unset). */
  readonly httpsProxy: string | undefined
  /** The hosts reached directly, as written (`""` when unset). */
  readonly noProxy: string
}

const processEnv = (): Env => (typeof process === "undefined" ? {} : process.env)

/** A variable's value, lower-case name first; `undefined` when unset or blank. */
const variable = (env: Env, name: string): string | undefined => {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

/** A proxy as a URL string with a scheme (`proxy:3128` -> `http://proxy:3128`). */
const withScheme = (proxy: string | undefined): string | undefined =>
  proxy === undefined ? undefined : /^[a-z][a-z0-9+.-]*:\/\//iu.test(proxy) ? proxy : `http://${proxy}`

/** The proxy settings `env` gives. */
export const settings = (env: Env = processEnv()): Settings => {
  const httpProxy = withScheme(variable(env, "HTTP_PROXY"))
  return {
    httpProxy,
    httpsProxy: withScheme(variable(env, "HTTPS_PROXY")) ?? httpProxy,
    noProxy: variable(env, "NO_PROXY") ?? ""
  }
}

/** Whether `env` names a proxy at all (else a client connects directly and need not read further). */
export const configured = (env: Env = processEnv()): boolean =>
  PROXY_VARIABLES.some((name) => (env[name] ?? "").trim() !== "")

/**
 * The options of undici's `EnvHttpProxyAgent` for `env`, or `undefined` when `env` names no proxy (a
 * plain `Agent` then). Each is given, `""` for none, so that undici reads nothing from `process.env`.
 */
export const agentOptions = (
  env: Env = processEnv()
): { readonly httpProxy: string; readonly httpsProxy: string; readonly noProxy: string } | undefined => {
  if (!configured(env)) return undefined
  const { httpProxy, httpsProxy, noProxy } = settings(env)
  return { httpProxy: httpProxy ?? "", httpsProxy: httpsProxy ?? "", noProxy }
}

const secure = (protocol: string): boolean => protocol === "https:" || protocol === "wss:"

/** The port a URL reaches (its scheme's default when it names none). */
export const portOf = (url: URL): number => (url.port !== "" ? Number(url.port) : secure(url.protocol) ? 443 : 80)

/** A host name as compared: no IPv6 brackets, lower case, no trailing dot. */
const normalHost = (host: string): string => {
  const bare = host.replace(/^\[(.+)\]$/u, "$1").toLowerCase()
  return bare.length > 1 && bare.endsWith(".") ? bare.slice(0, -1) : bare
}

/** One `NO_PROXY` entry. */
interface Exemption {
  readonly host: string
  /** 0: every port. */
  readonly port: number
  /** `*.example.com`: subdomains only. */
  readonly subdomainsOnly: boolean
}

/** Parses a `NO_PROXY` list. */
const exemptions = (noProxy: string): ReadonlyArray<Exemption> =>
  noProxy
    .split(/[\s,]+/u)
    .filter((entry) => entry !== "")
    .map((entry) => {
      // `[::1]:443`, else `host:port` (one colon), else a name or a bare IPv6 address (`::1`).
      const bracketed = /^\[(.+)\]:(\d+)$/u.exec(entry)
      const unbracketed = entry.replace(/^\[(.+)\]$/u, "$1")
      const hostPort =
        bracketed === null && unbracketed.split(":").length === 2 ? /^(.+):(\d+)$/u.exec(unbracketed) : null
      const host = bracketed?.[1] ?? hostPort?.[1] ?? unbracketed
      return {
        host: normalHost(host === "*" ? host : host.replace(/^\*?\./u, "")),
        port: Number(bracketed?.[2] ?? hostPort?.[2] ?? 0),
        subdomainsOnly: entry.startsWith("*") && entry !== "*" && !/^\*:\d+$/u.test(entry)
      }
    })

/** Whether `noProxy` says to reach `url` directly. */
export const exempt = (url: URL, noProxy: string): boolean => {
  const host = normalHost(url.hostname)
  const port = portOf(url)
  return exemptions(noProxy).some(
    (entry) =>
      (entry.port === 0 || entry.port === port) &&
      (entry.host === "*" || (!entry.subdomainsOnly && host === entry.host) || host.endsWith(`.${entry.host}`))
  )
}

/** The proxy to reach `url` through, or `undefined` to connect directly. */
export const proxyFor = (url: URL, env: Env = processEnv()): URL | undefined => {
  const { httpProxy, httpsProxy, noProxy } = settings(env)
  const named = secure(url.protocol) ? httpsProxy : httpProxy
  if (named === undefined || exempt(url, noProxy)) return undefined
  try {
    return new URL(named)
  } catch {
    return undefined
  }
}

/** A proxy as messages show it: scheme, host and port, never its credentials. */
export const shown = (proxy: URL): string => `${proxy.protocol}//${proxy.host}`
