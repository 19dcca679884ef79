/**
 * The admin API's middleware, as the server runs it:
 *
 * - `AdminAuth`: a bearer token (the shared one or a moderator's) or a live console session (401
 *   otherwise, with `WWW-Authenticate: Bearer`); a state-changing call with the cookie also needs the
 *   session's CSRF token and the console's origin (403); then the role the route needs (403
 *   `FORBIDDEN`, `Permissions`). The probes `admin.public` lists pass without either.
 * - `InputValidation`: a body over 1 MiB is a 413 before it is read; on a route that takes a JSON body,
 *   a request without `Content-Type` or with another type is a 415 (the envelope, not HttpApi's
 *   `text/plain` answer; HttpApi would read a body without a type as JSON); a query parameter the
 *   endpoint does not declare, one given twice or holding control characters is a 400 naming it; a
 *   path, query or body the schemas refuse is a 400 naming the parameter or field (never HttpApi's
 *   empty 400).
 */
import { Effect, Layer, SchemaIssue } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApiEndpoint, HttpApiError, type HttpApiGroup } from "effect/http-api"
import { AdminAuth, AdminCaller, type Caller, InputValidation } from "./AdminSecurity.ts"
import { AdminRefused, answering } from "./AdminError.ts"
import * as ConsoleSession from "./ConsoleSession.ts"
import { Moderators, type ModeratorsShape } from "./Moderators.ts"
import * as Permissions from "./Permissions.ts"
import * as RequestInput from "./RequestInput.ts"

/** A probe `admin.public` may open: `healthz`, `readyz`, `metrics`. */
export type PublicProbe = "healthz" | "readyz" | "metrics"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * The caller of a request, or undefined when it has neither a good bearer token nor a live session (a
 * session of a moderator disabled since is closed).
 */
export const caller = (
  req: ConsoleSession.WithHeaders,
  sessions: ConsoleSession.Sessions,
  moderators: ModeratorsShape
): Effect.Effect<Caller | undefined> =>
  Effect.gen(function* () {
    const header = req.headers.authorization
    // Case-sensitive scheme, one credential: anything else is not our token (HttpApiSecurity is lenient).
    const match = typeof header === "string" ? /^Bearer +(\S+)$/.exec(header) : null
    if (match !== null) {
      const who = yield* moderators.identify(match[1]!)
      return who === undefined ? undefined : { ...who, via: "bearer" as const }
    }
    const session = sessions.of(req)
    if (session === undefined) return undefined
    if (!(yield* moderators.stillActive(session.moderator))) {
      sessions.close(session.id)
      return undefined
    }
    return { ...session.moderator, via: "cookie" as const, session }
  }).pipe(Effect.orDie)

const unauthenticated = new AdminRefused({
  status: 401,
  code: "UNAUTHENTICATED",
  message: "missing or wrong bearer token (Authorization: Bearer <token>), and no console session"
})

/**
 * Who may call: a bearer token, or a session (with its CSRF proof on state-changing calls). Bearer
 * calls need no such proof: no browser adds that header on its own.
 */
export const authenticate = (
  request: HttpServerRequest.HttpServerRequest,
  sessions: ConsoleSession.Sessions,
  moderators: ModeratorsShape
): Effect.Effect<Caller, AdminRefused> =>
  Effect.gen(function* () {
    const who = yield* caller(request, sessions, moderators)
    if (who === undefined) {
      yield* HttpEffect.appendPreResponseHandler((_, res) =>
        Effect.succeed(res.status === 401 ? HttpServerResponse.setHeader(res, "www-authenticate", "Bearer") : res)
      ).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))
      return yield* unauthenticated
    }
    if (who.via === "cookie" && !SAFE_METHODS.has(request.method)) {
      const problem = ConsoleSession.crossSiteProblem(request, who.session)
      if (problem !== undefined)
        return yield* new AdminRefused({ status: 403, code: "CROSS_SITE_REFUSED", message: problem })
    }
    return who
  })

/** The caller of the public probes (`admin.public`): nobody signed in, reading. */
const PUBLIC: Caller = { name: "public", role: "viewer", from: "token", via: "bearer" }

/** `AdminAuth` for the server's sessions and moderators, and the public probes. */
export const authLayer = (options: {
  readonly sessions: ConsoleSession.Sessions
  readonly public: ReadonlyArray<PublicProbe>
}) =>
  Layer.effect(
    AdminAuth,
    Effect.gen(function* () {
      const moderators = yield* Moderators
      const check = (
        httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, any, AdminCaller>,
        context: {
          readonly endpoint: HttpApiEndpoint.Top
          readonly group: HttpApiGroup.Top
        }
      ) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const probe = context.endpoint.identifier
          if ((probe === "readyz" || probe === "metrics") && options.public.includes(probe))
            return yield* Effect.provideService(httpEffect, AdminCaller, PUBLIC)
          const who = yield* answering(authenticate(request, options.sessions, moderators))
          const refused = Permissions.refusal(
            who,
            Permissions.neededFor(`${context.group.identifier}.${context.endpoint.identifier}`)
          )
          if (refused !== undefined) return yield* answering(Effect.fail(refused))
          return yield* Effect.provideService(httpEffect, AdminCaller, who)
        })
      // Both schemes are the same check: it reads the raw header and cookie itself.
      return AdminAuth.of({ bearer: check, session: check })
    })
  )

const MAX_BODY = RequestInput.MAX_BODY_BYTES

/** The parameter or field an issue names, and what is wrong with it. */
const problems = (issue: SchemaIssue.Issue) =>
  SchemaIssue.makeFormatterStandardSchemaV1()(issue).issues.map((i) => ({
    path: (i.path ?? []).map((p) => String(typeof p === "object" && p !== null ? p.key : p)).join("."),
    message: i.message
  }))

/** A schema refusal of the request as the 400 envelope naming what is wrong. */
const badInput = (error: HttpApiError.HttpApiSchemaError): AdminRefused => {
  const found = problems(error.cause.issue)
  const first = found[0]
  if (error.kind === "Payload") {
    const listed = found.map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`)).join("; ")
    return new AdminRefused({
      status: 400,
      code: "BAD_REQUEST",
      message: `the body is wrong: ${listed}`,
      ...(first === undefined || first.path === "" ? {} : { parameter: first.path })
    })
  }
  const parameter = first?.path || error.kind.toLowerCase()
  return new AdminRefused({
    status: 400,
    code: "BAD_REQUEST",
    message: `${parameter}: ${first?.message ?? "is wrong"}`,
    parameter
  })
}

/** 413: a body over the admin API's limit (announced by its length here, or found reading it: `AdminServer`). */
export const tooLarge = new AdminRefused({
  status: 413,
  code: "PAYLOAD_TOO_LARGE",
  message: `the body is over ${MAX_BODY} bytes (1 MiB), the admin API's limit`
})

/**
 * 415 when `endpoint` takes a body and the request's `Content-Type` is missing or not one it takes,
 * else undefined.
 */
export const unsupportedMediaType = (
  endpoint: HttpApiEndpoint.Top,
  request: { readonly method: string; readonly headers: Readonly<Record<string, string | undefined>> }
): AdminRefused | undefined => {
  const takes = [...endpoint.payload.keys()]
  if (takes.length === 0 || SAFE_METHODS.has(request.method)) return undefined
  const given = request.headers["content-type"]
  const media = given === undefined ? undefined : given.split(";")[0]!.trim().toLowerCase()
  if (media !== undefined && media !== "" && takes.includes(media)) return undefined
  return new AdminRefused({
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    message:
      media === undefined || media === ""
        ? `the body needs Content-Type: ${takes.join(" or ")}`
        : `Content-Type ${media} is not taken here: send ${takes.join(" or ")}`
  })
}

/** The names of the query parameters an endpoint declares. */
const declaredQuery = (endpoint: HttpApiEndpoint.Top): ReadonlyArray<string> => {
  const query = endpoint.query as { readonly schema?: { readonly fields?: Record<string, unknown> } } | undefined
  return Object.keys(query?.schema?.fields ?? {})
}

/**
 * The path parameter a path names with bad percent-encoding (`/api/decisions/%ZZ`: `reference`), found
 * through the API's own path templates: the router matches no route for such a path.
 */
export const badlyEncodedParameter = (
  routes: ReadonlyArray<{ readonly method: string; readonly path: string }>,
  method: string,
  path: string
): string | undefined => {
  for (const route of routes) {
    if (route.method !== method) continue
    const names: Array<string> = []
    const pattern = route.path.replace(/:(\w+)/gu, (_, name: string) => {
      names.push(name)
      return "([^/]+)"
    })
    const match = new RegExp(`^${pattern}$`, "u").exec(path)
    if (match === null) continue
    const bad = names.find((_, i) => {
      try {
        decodeURIComponent(match[i + 1]!)
        return false
      } catch {
        return true
      }
    })
    if (bad !== undefined) return bad
  }
  return undefined
}

/** `InputValidation`. */
export const inputLayer = Layer.succeed(
  InputValidation,
  InputValidation.of((httpEffect, context) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      // The rest of an oversized body is not read: the connection closes after the answer.
      if (Number(request.headers["content-length"] ?? 0) > MAX_BODY) {
        yield* HttpEffect.appendPreResponseHandler((_, res) =>
          Effect.succeed(HttpServerResponse.setHeader(res, "connection", "close"))
        )
        return yield* answering(Effect.fail(tooLarge))
      }
      const unsupported = unsupportedMediaType(context.endpoint, request)
      if (unsupported !== undefined) return yield* answering(Effect.fail(unsupported))
      const url = new URL(request.url, "http://admin")
      yield* answering(RequestInput.query(url.searchParams, declaredQuery(context.endpoint)))
      return yield* httpEffect.pipe(
        Effect.catch((error) =>
          HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders"
            ? answering(Effect.fail(badInput(error)))
            : Effect.fail(error)
        )
      )
    })
  )
)
