/**
 * The admin server's part for the review console: its files and sign-in (no token needed to load
 * the page, which shows no data until signed in), who a request is (bearer token or session cookie),
 * the CSRF guard of cookie calls, and the console's own API routes:
 *
 * - `GET /?token=TOKEN`: the printed link; sets the session cookie and redirects to `/` (the token
 *   leaves the address bar). A wrong token redirects to `/?signin=refused`, with no cookie.
 * - `POST /session` `{ token }`: the page's sign-in form. `POST /session/end`: signs out.
 * - `GET /api/session`: `{ via, csrf }`, the CSRF token the page sends back on state-changing calls.
 * - `GET /api/decisions/stream?<filters of /api/decisions>`: new decisions as server-sent events.
 * - `GET /api/pipeline`: sink queues, items per source and status, verdicts per minute by type.
 * - `POST /api/sinks/{sink}/replay`: the sink's dead letters back into its outbox (`{ replayed }`).
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect, Redacted } from "effect"
import * as DeadLetterReplay from "../state/DeadLetterReplay.ts"
import type { StateStore } from "../state/StateStore.ts"
import { AdminRefused, json } from "./AdminError.ts"
import * as ConsoleAssets from "./ConsoleAssets.ts"
import * as ConsoleSession from "./ConsoleSession.ts"
import * as DecisionStream from "./DecisionStream.ts"
import * as PipelineView from "./PipelineView.ts"
import * as RequestInput from "./RequestInput.ts"

/** Who made a request: an API client with the bearer token, or a signed-in console. */
export type Caller =
  | { readonly via: "bearer" }
  | { readonly via: "cookie"; readonly session: ConsoleSession.Session & { readonly id: string } }

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/** The caller of a request, or undefined when it has neither a good bearer token nor a live session. */
export const caller = (
  req: IncomingMessage,
  token: Redacted.Redacted<string>,
  sessions: ConsoleSession.Sessions
): Caller | undefined => {
  const header = req.headers.authorization
  const match = typeof header === "string" ? /^Bearer +(\S+)$/.exec(header) : null
  if (match !== null) return ConsoleSession.sameSecret(match[1]!, Redacted.value(token)) ? { via: "bearer" } : undefined
  const session = sessions.of(req)
  return session === undefined ? undefined : { via: "cookie", session }
}

/**
 * Refuses a state-changing call made with the session cookie that does not prove it comes from the
 * console (its CSRF token, its origin). Bearer calls need no such proof: no browser adds that header
 * on its own.
 */
export const guardCrossSite = (req: IncomingMessage, who: Caller): Effect.Effect<void, AdminRefused> => {
  if (who.via === "bearer" || SAFE_METHODS.has(req.method ?? "GET")) return Effect.void
  const problem = ConsoleSession.crossSiteProblem(req, who.session)
  return problem === undefined
    ? Effect.void
    : Effect.fail(new AdminRefused({ status: 403, code: "CROSS_SITE_REFUSED", message: problem }))
}

const SignIn = (raw: unknown): string | undefined =>
  typeof raw === "object" && raw !== null && typeof (raw as { token?: unknown }).token === "string"
    ? (raw as { token: string }).token
    : undefined

/**
 * The routes anyone may call: the console's files, the sign-in link and form. Returns whether it
 * answered the request.
 */
export const publicRoutes = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  sessions: ConsoleSession.Sessions
): Effect.Effect<boolean, AdminRefused> =>
  Effect.gen(function* () {
    const path = url.pathname
    if (req.method === "GET" && path === "/" && url.searchParams.has("token")) {
      const given = url.searchParams.get("token") ?? ""
      if (!sessions.tokenMatches(given)) {
        res.writeHead(303, { location: "/?signin=refused", ...ConsoleAssets.SECURITY_HEADERS })
        res.end()
        return true
      }
      const { setCookie } = sessions.open()
      res.writeHead(303, { location: "/", "set-cookie": setCookie, ...ConsoleAssets.SECURITY_HEADERS })
      res.end()
      return true
    }
    const file = ConsoleAssets.PATHS[path]
    if (req.method === "GET" && file !== undefined) {
      ConsoleAssets.serve(res, file)
      return true
    }
    if (req.method === "POST" && path === "/session") {
      // Login CSRF: only the console's own page may sign a browser in.
      const origin = req.headers.origin
      const host = req.headers.host ?? ""
      if (typeof origin === "string" && origin !== `http://${host}` && origin !== `https://${host}`) {
        return yield* new AdminRefused({
          status: 403,
          code: "CROSS_SITE_REFUSED",
          message: `the request comes from another origin (${origin})`
        })
      }
      const token = SignIn(yield* RequestInput.jsonBody(req))
      if (token === undefined) {
        return yield* new AdminRefused({
          status: 400,
          code: "BAD_REQUEST",
          message: 'the body must be { "token": "<admin.token>" }',
          parameter: "token"
        })
      }
      if (!sessions.tokenMatches(token)) {
        return yield* new AdminRefused({
          status: 401,
          code: "UNAUTHENTICATED",
          message: "that token is not the admin token"
        })
      }
      const { setCookie } = sessions.open()
      json(res, 200, { signedIn: true }, { "set-cookie": setCookie })
      return true
    }
    return false
  })

/** The console's API routes (the caller is known). Returns whether it answered the request. */
export const privateRoutes = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  who: Caller,
  context: {
    readonly sessions: ConsoleSession.Sessions
    readonly store: StateStore["Service"]
    readonly sinks: ReadonlyArray<string>
    /** The filters of `GET /api/decisions`, read from the query. */
    readonly filters: (
      params: URLSearchParams,
      extra: ReadonlyArray<string>
    ) => Effect.Effect<Parameters<typeof DecisionStream.serve>[3], AdminRefused>
  }
) =>
  Effect.gen(function* () {
    const path = url.pathname
    if (req.method === "GET" && path === "/api/session") {
      yield* RequestInput.query(url.searchParams, [])
      json(res, 200, { via: who.via, csrf: who.via === "cookie" ? who.session.csrf : null })
      return true
    }
    if (req.method === "POST" && path === "/session/end") {
      yield* RequestInput.query(url.searchParams, [])
      const headers = who.via === "cookie" ? { "set-cookie": context.sessions.close(who.session.id) } : {}
      json(res, 200, { signedIn: false }, headers)
      return true
    }
    if (req.method === "GET" && path === "/api/decisions/stream") {
      const filters = yield* context.filters(url.searchParams, [])
      yield* DecisionStream.serve(req, res, context.store, filters)
      return true
    }
    if (req.method === "GET" && path === "/api/pipeline") {
      yield* RequestInput.query(url.searchParams, [])
      const counters = yield* PipelineView.read(context.store.sql, context.sinks, Date.now())
      json(res, 200, counters)
      return true
    }
    const replay = /^\/api\/sinks\/([^/]+)\/replay$/u.exec(path)
    if (req.method === "POST" && replay !== null) {
      yield* RequestInput.query(url.searchParams, [])
      const sink = yield* RequestInput.pathSegment("sink", replay[1]!)
      const replayed = yield* DeadLetterReplay.replay(context.store.sql, sink)
      json(res, 200, { sink, replayed })
      return true
    }
    return false
  })
