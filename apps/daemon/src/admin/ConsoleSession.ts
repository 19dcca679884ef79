/**
 * Sign-in of the review console: a moderator opens the printed `console  http://HOST:PORT/?token=...`
 * link (or types the token into the page) and gets a session cookie, `HttpOnly` (no script reads it)
 * and `SameSite=Strict` (no other site's page sends it). Each session has its own CSRF token, which the
 * page reads from `GET /api/session` (or from the answer of the form's `POST /session`) and sends back
 * in `x-warden-csrf` on every state-changing call: a cross-site form or script cannot know it. Sessions live in memory: a restart signs everyone out.
 *
 * A session is bound to the moderator whose token opened it (`Moderators.identify`): the console shows
 * who is signed in, and every call made in it is theirs, with their role.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import { COOKIE, type Session } from "./ConsoleCookie.ts"
import type { Moderator } from "./ModeratorRole.ts"

export { COOKIE, type Session } from "./ConsoleCookie.ts"
/** The header carrying the session's CSRF token on state-changing calls. */
export const CSRF_HEADER = "x-warden-csrf"
/** How long a session lasts after sign-in. */
export const SESSION_MILLIS = 12 * 60 * 60 * 1000
// Enough for every moderator of a deployment; the oldest goes first past it.
const MAX_SESSIONS = 1000

/** Constant-time equality of two secrets (length leaks, content does not). */
export const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** What this module reads of a request: its headers (lower-case names), from node:http or effect/http. */
export interface WithHeaders {
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
}

const header = (req: WithHeaders, name: string): string | undefined => {
  const value = req.headers[name]
  return typeof value === "string" ? value : undefined
}

/** The value of one cookie of a request. */
export const cookie = (req: WithHeaders, name: string): string | undefined => {
  for (const part of (header(req, "cookie") ?? "").split(";")) {
    const eq = part.indexOf("=")
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** The sessions of one admin server. */
export const make = (now: () => number = Date.now) => {
  const sessions = new Map<string, Session>()

  /**
   * Opens a session for `moderator`; returns its id (the cookie's value), its CSRF token and the
   * `Set-Cookie` header.
   */
  const open = (moderator: Moderator) => {
    const id = randomBytes(32).toString("base64url")
    const csrf = randomBytes(24).toString("base64url")
    sessions.set(id, { csrf, expiresAt: now() + SESSION_MILLIS, moderator })
    while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!)
    return {
      id,
      csrf,
      setCookie: `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MILLIS / 1000}`
    }
  }

  /** The live session a request's cookie names, if any. */
  const of = (req: WithHeaders): (Session & { readonly id: string }) | undefined => {
    const id = cookie(req, COOKIE)
    if (id === undefined) return undefined
    const session = sessions.get(id)
    if (session === undefined) return undefined
    if (session.expiresAt <= now()) {
      sessions.delete(id)
      return undefined
    }
    return { ...session, id }
  }

  /** Ends a session; returns the `Set-Cookie` header that clears the cookie. */
  const close = (id: string) => {
    sessions.delete(id)
    return `${COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`
  }

  return { open, of, close } as const
}

/** The sessions of one admin server. */
export type Sessions = ReturnType<typeof make>

/**
 * Why a request is from another origin than the console's own page, or undefined when it is not (or
 * the browser does not say). Behind a TLS-terminating proxy the page's origin is https with the same host.
 */
export const foreignOrigin = (req: WithHeaders): string | undefined => {
  const origin = header(req, "origin")
  const host = header(req, "host") ?? ""
  return origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`
    ? `the request comes from another origin (${origin})`
    : undefined
}

/**
 * Why a state-changing call with a session cookie is refused as possibly cross-site, or undefined
 * when it carries the session's CSRF token and comes from the console's own origin (when the browser
 * says where it comes from).
 */
export const crossSiteProblem = (req: WithHeaders, session: Session): string | undefined => {
  const foreign = foreignOrigin(req)
  if (foreign !== undefined) return foreign
  const given = header(req, CSRF_HEADER)
  if (given === undefined || !sameSecret(given, session.csrf))
    return `missing or wrong ${CSRF_HEADER} header (the console sends the token of GET /api/session)`
  return undefined
}
