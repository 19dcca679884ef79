/**
 * The error answers of the sandbox, built with `@warden/core`'s error classes (each class IS the wire
 * envelope), serialised once to the JSON text sent.
 */
import {
  AuthenticationError,
  BadRequestError,
  type FieldViolation,
  NotFoundError,
  PermissionDeniedError,
  QuotaError,
  type QuotaViolation,
  TransientError
} from "@warden/core"

/** A status and the JSON text of its body. */
export interface Answer {
  readonly status: number
  readonly body: string
}

type Envelope = { readonly error: unknown }

const answer = (status: number, error: Envelope): Answer => ({ status, body: JSON.stringify({ error: error.error }) })

/** 400 `BAD_REQUEST_ERROR` with every violation. */
export const badRequest = (violations: ReadonlyArray<FieldViolation>): Answer =>
  answer(400, BadRequestError.fromViolations(violations))

/** 400 for one problem with the whole body (`field: ""`). */
export const badBody = (message: string): Answer => badRequest([{ field: "", message }])

/** 401 `AUTHENTICATION_ERROR`. */
export const unauthenticated = (reason: string): Answer => answer(401, AuthenticationError.fromReason(reason))

/** 403 `PERMISSION_DENIED_ERROR`. */
export const permissionDenied = (permission: string, resourceIdentifier: string): Answer =>
  answer(403, PermissionDeniedError.of(permission, resourceIdentifier))

/** 404 `NOT_FOUND_ERROR`. */
export const notFound = (resourceIdentifier: string): Answer => answer(404, NotFoundError.of(resourceIdentifier))

/** 429 `QUOTA_ERROR`. */
export const quota = (violations: ReadonlyArray<QuotaViolation>): Answer =>
  answer(429, QuotaError.fromViolations(violations))

/** 503 `TRANSIENT_ERROR`. */
export const transient = (reason: string): Answer => answer(503, TransientError.fromReason(reason))

/** 200 with a JSON body. */
export const ok = (body: unknown): Answer => ({ status: 200, body: JSON.stringify(body) })
