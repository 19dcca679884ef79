/**
 * The one error envelope of the admin API: `{ "error": { "code", "message", ... } }`, whatever the
 * route and the status. Input a user gets wrong is a 4xx naming what is wrong (the parameter, the
 * field); a 500 means a fault of the daemon, never bad input.
 */
import { Effect, Schema } from "effect"
import { HttpServerRespondable, HttpServerResponse } from "effect/http"

/** The body every admin error answers with. */
export const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String,
    message: Schema.String,
    /** The query or path parameter that is wrong (`limit`, `reference`). */
    parameter: Schema.optionalKey(Schema.String),
    /** For `AMBIGUOUS_REFERENCE`: the sources that recorded the reference. */
    sources: Schema.optionalKey(Schema.Array(Schema.String))
  })
})
/** @see {@link ErrorEnvelope} */
export type ErrorEnvelope = typeof ErrorEnvelope.Type

/** A request the admin API refuses, with its status and envelope. */
export class AdminRefused extends Schema.TaggedError<AdminRefused>()("AdminRefused", {
  status: Schema.Int,
  code: Schema.String,
  message: Schema.String,
  parameter: Schema.optionalKey(Schema.String),
  sources: Schema.optionalKey(Schema.Array(Schema.String))
}) {
  /** The envelope of this refusal. */
  get envelope(): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.parameter === undefined ? {} : { parameter: this.parameter }),
        ...(this.sources === undefined ? {} : { sources: this.sources })
      }
    }
  }
}

/**
 * The envelope as an HttpApi error: one class per status, each carrying the same `error` body (its
 * `_tag` is never sent), so the OpenAPI document lists every status a route can answer with.
 */
const wire = <const Tag extends string>(tag: Tag, status: number, description: string) =>
  Schema.Error<WireError<Tag>>(tag)(
    { _tag: Schema.tagDefaultOmit(tag), error: ErrorEnvelope.fields.error },
    { httpApiStatus: status, identifier: tag, description }
  )
/** A wire error of the admin API (the envelope with a status). */
export interface WireError<Tag extends string> extends Error {
  readonly _tag: Tag
  readonly error: ErrorEnvelope["error"]
}

/** 400: a parameter, a path segment or the body is wrong (named in `parameter` and the message). */
export class BadRequest extends wire("BadRequest", 400, "A parameter, path segment or body is wrong") {}
/** 401: no bearer token or session cookie, or a wrong one. */
export class Unauthenticated extends wire("Unauthenticated", 401, "Missing or wrong bearer token, no session") {}
/** 403: a cookie call without the session's CSRF token or from another origin, or a role that may not (`FORBIDDEN`). */
export class CrossSiteRefused extends wire(
  "CrossSiteRefused",
  403,
  "A cross-site request with the session cookie (CROSS_SITE_REFUSED), or a role that may not (FORBIDDEN)"
) {}
/** 404: nothing stored under that name, or no such route. */
export class NotFound extends wire("NotFound", 404, "Nothing stored under that name") {}
/** 409: the reference is ambiguous (`sources` lists who recorded it), or the item has no verdict. */
export class Conflict extends wire("Conflict", 409, "Ambiguous reference, or nothing to act on") {}
/** 410: the item was erased. */
export class Gone extends wire("Gone", 410, "The item was erased") {}
/** 413: the body is over 1 MiB. */
export class PayloadTooLarge extends wire("PayloadTooLarge", 413, "The body is over 1 MiB") {}
/** 415: a body without `Content-Type`, or of a type the route does not take (it takes `application/json`). */
export class UnsupportedMediaType extends wire(
  "UnsupportedMediaType",
  415,
  "The body has no Content-Type, or not application/json"
) {}
/** 502: the Content Analysis API or the platform refused or failed. */
export class Upstream extends wire("Upstream", 502, "The Content Analysis API or the platform failed") {}

const BY_STATUS = {
  400: BadRequest,
  401: Unauthenticated,
  403: CrossSiteRefused,
  404: NotFound,
  409: Conflict,
  410: Gone,
  413: PayloadTooLarge,
  415: UnsupportedMediaType,
  502: Upstream
} as const

const TAGS = new Map<unknown, string>(
  Object.values(BY_STATUS).map((C) => [C, (C as { identifier?: string }).identifier ?? ""])
)

/** A refusal as its HttpApi error class; a status without one is a fault of the daemon (a defect, 500). */
export const toWire = (refused: AdminRefused) => {
  const Class = BY_STATUS[refused.status as keyof typeof BY_STATUS]
  if (Class === undefined) return Effect.die(refused)
  const _tag = TAGS.get(Class)! as "BadRequest"
  return Effect.fail(new (Class as typeof BadRequest)({ _tag, error: refused.envelope.error }))
}

// Each wire error answers with its envelope also where an endpoint did not declare it (HttpApi falls
// back to a Respondable error when the endpoint's error schema does not encode it).
for (const [status, Class] of Object.entries(BY_STATUS)) {
  Object.defineProperty(Class.prototype, HttpServerRespondable.symbol, {
    value(this: WireError<string>) {
      return Effect.succeed(HttpServerResponse.jsonUnsafe({ error: this.error }, { status: Number(status) }))
    }
  })
}

/**
 * Runs `effect`, answering its refusals with their wire class (each with its own status, whether the
 * endpoint declares it or not: see above); other failures (the state store's) are faults, 500.
 */
export const answering = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, never, R> =>
  Effect.catch(effect, (e) => (e instanceof AdminRefused ? toWire(e) : Effect.die(e))) as Effect.Effect<A, never, R>

/** 400 for a wrong parameter, naming it. */
export const badParameter = (parameter: string, message: string) =>
  new AdminRefused({ status: 400, code: "BAD_REQUEST", message: `${parameter}: ${message}`, parameter })

/**
 * A refusal as a response, for what the HttpApi does not answer itself (the routes beside it, unknown
 * routes, faults): 401 says how to authenticate; after a 413 the connection closes (the rest of the
 * body is not read).
 */
export const envelopeResponse = (refused: AdminRefused): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(refused.envelope, {
    status: refused.status,
    headers: {
      ...(refused.status === 401 ? { "www-authenticate": "Bearer" } : {}),
      ...(refused.status === 413 ? { connection: "close" } : {})
    }
  })
