/**
 * Every error answer in the API's own envelope (`{ error: { code, details: { <code in camel case>: ... } } }`,
 * the spec's "Errors"), so a client of the API reads Warden's errors as it reads the API's.
 *
 * @since 0.1.0
 */

/** One field's problem, as the API's `fieldViolations` name it (`items[2].text`, `author.username`). */
export interface FieldViolation {
  readonly field: string
  readonly message: string
}

/** An answer: a status, a JSON body, extra headers. */
export interface Answer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** 400 `BAD_REQUEST_ERROR` with every problem (or 413 for a body over the limit). */
export const badRequest = (fieldViolations: ReadonlyArray<FieldViolation>, status = 400): Answer => ({
  status,
  body: { error: { code: "BAD_REQUEST_ERROR", details: { badRequestError: { fieldViolations } } } }
})

/** 401 `AUTHENTICATION_ERROR`. */
export const unauthenticated = (reason: string): Answer => ({
  status: 401,
  body: { error: { code: "AUTHENTICATION_ERROR", details: { authenticationError: { reason } } } },
  headers: { "www-authenticate": 'Bearer realm="warden"' }
})

/** 404 `NOT_FOUND_ERROR` naming what was asked for. */
export const notFound = (resourceIdentifier: string): Answer => ({
  status: 404,
  body: { error: { code: "NOT_FOUND_ERROR", details: { notFoundError: { resourceIdentifier } } } }
})

/** 429 `QUOTA_ERROR` naming the client's quota, with `Retry-After` in seconds. */
export const quota = (quotaName: string, quotaValue: number, retryAfterSeconds: number): Answer => ({
  status: 429,
  body: { error: { code: "QUOTA_ERROR", details: { quotaError: { violations: [{ quotaName, quotaValue }] } } } },
  headers: { "retry-after": String(retryAfterSeconds) }
})

/** 503 `TRANSIENT_ERROR`: nothing was accepted, try again (the typed client retries it). */
export const transient = (reason: string): Answer => ({
  status: 503,
  body: { error: { code: "TRANSIENT_ERROR", details: { transientError: { reason } } } },
  headers: { "retry-after": "1" }
})
