/**
 * The errors of the Promise clients (`Warden`, `WardenLegacy`), as openai-node shapes them: one base
 * class, `WardenError`, with `status`, `code`, `requestId`, `attempts` and a one-line `message`
 * (`401 AUTHENTICATION_ERROR: REASON_EXPIRED_CREDENTIALS (request 1b2c…, 1 attempt)`), and a subclass
 * per code for `instanceof`. The Effect side keeps its tagged errors (`ApiErrors.ts`,
 * `ClientErrors.ts`); `fromFailure` turns one into the other and keeps it as `cause`.
 *
 * Published as `@warden/core/errors` (re-exported by `@warden/v1` and `@warden/legacy`): the class
 * names are the Effect classes' names, so they live in their own module.
 */
import type { ApiError } from "./ApiErrors.ts"
import { callInfoOf } from "./CallInfo.ts"
import type { RequestValidationError as EffectRequestValidationError } from "./ClientErrors.ts"
import type { ResponseDecodeError, TransportError, TransportFailure } from "./ClientErrors.ts"
import type { FieldViolation } from "./FieldViolation.ts"
import { formatViolations } from "./internal/formatViolations.ts"
import type { QuotaViolation } from "./ApiErrors.ts"

/** The fields every `WardenError` is built from. */
export interface WardenErrorFields {
  /** HTTP status of the answer; `undefined` when no answer came back or nothing was sent. */
  readonly status?: number | undefined
  /** The API's error code (`QUOTA_ERROR`, ...) or a client-side one (`TIMEOUT`, `ABORTED`, ...). */
  readonly code: string
  /** What went wrong, without status, code or request id (the message adds them). */
  readonly detail: string
  /** The call, e.g. `POST /analyze/v1/text`. */
  readonly endpoint?: string | undefined
  /** The `x-request-id` sent; quote it to the API's support. */
  readonly requestId?: string | undefined
  /** Attempts made (0: refused before sending). */
  readonly attempts?: number | undefined
  /** The error this one was made from (the Effect side's tagged error, or an undici error). */
  readonly cause?: unknown
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The one-line message: `STATUS CODE: detail (request ID, N attempts)`. */
export const formatMessage = (fields: WardenErrorFields): string => {
  const where: Array<string> = []
  if (fields.requestId !== undefined) where.push(`request ${fields.requestId}`)
  if (fields.attempts !== undefined && fields.attempts !== 1) {
    where.push(fields.attempts === 0 ? "not sent" : plural(fields.attempts, "attempt"))
  }
  const head = fields.status === undefined ? fields.code : `${fields.status} ${fields.code}`
  return `${head}: ${fields.detail}${where.length === 0 ? "" : ` (${where.join(", ")})`}`
}

/**
 * Any failure of a Warden Promise client. Catch this to catch everything; test the subclass (or
 * `code`) to act: only `TransientError`, `ConnectionError` and `TimeoutError` from the transport's own
 * per-attempt timeout are worth retrying later, and the client already retried them.
 */
export class WardenError extends Error {
  /** HTTP status of the answer; `undefined` when no answer came back or nothing was sent. */
  readonly status: number | undefined
  /** The API's error code, or a client-side one (`REQUEST_VALIDATION_ERROR`, `TIMEOUT`, ...). */
  readonly code: string
  /** The call, e.g. `POST /analyze/v1/text`. */
  readonly endpoint: string | undefined
  /** The `x-request-id` sent (the same on every attempt); `undefined` when nothing was sent. */
  readonly requestId: string | undefined
  /** Attempts made, over every region tried (0: refused before sending). */
  readonly attempts: number | undefined

  constructor(fields: WardenErrorFields) {
    super(formatMessage(fields), fields.cause === undefined ? undefined : { cause: fields.cause })
    this.status = fields.status
    this.code = fields.code
    this.endpoint = fields.endpoint
    this.requestId = fields.requestId
    this.attempts = fields.attempts
  }

  override get name(): string {
    return this.constructor.name
  }

  /** The error as plain data for logs: no stack, no cause, never a key or a header. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      endpoint: this.endpoint,
      requestId: this.requestId,
      attempts: this.attempts
    }
  }
}

/** 400 `BAD_REQUEST_ERROR`: the API refused a field. Not retried. */
export class BadRequestError extends WardenError {
  declare readonly status: 400 | undefined
  declare readonly code: "BAD_REQUEST_ERROR" | "REQUEST_VALIDATION_ERROR"

  /** Every field the API refused. */
  readonly fieldViolations: ReadonlyArray<FieldViolation>
  constructor(fields: WardenErrorFields & { readonly fieldViolations: ReadonlyArray<FieldViolation> }) {
    super(fields)
    this.fieldViolations = fields.fieldViolations
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), fieldViolations: this.fieldViolations }
  }
}

/**
 * The body was refused by the client before any network call (same `fieldViolations` shape as a
 * 400). A subclass of `BadRequestError`, so one `instanceof` covers both. Not sent, not retried.
 */
export class RequestValidationError extends BadRequestError {
  declare readonly status: undefined
  declare readonly code: "REQUEST_VALIDATION_ERROR"
  declare readonly attempts: 0
}

/** An error with the server's `reason`: 401, 409, 412, 503. */
abstract class ReasonError extends WardenError {
  /** The server's reason, e.g. `REASON_EXPIRED_CREDENTIALS`. */
  readonly reason: string
  constructor(fields: WardenErrorFields & { readonly reason: string }) {
    super(fields)
    this.reason = fields.reason
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason }
  }
}

/** 401 `AUTHENTICATION_ERROR`: key missing, invalid, expired or disabled (`reason`). Not retried. */
export class AuthenticationError extends ReasonError {
  declare readonly status: 401
  declare readonly code: "AUTHENTICATION_ERROR"
}

/** 403 `PERMISSION_DENIED_ERROR`: the key lacks `permission` on `resourceIdentifier`. Not retried. */
export class PermissionDeniedError extends WardenError {
  declare readonly status: 403
  declare readonly code: "PERMISSION_DENIED_ERROR"

  readonly permission: string
  readonly resourceIdentifier: string
  constructor(fields: WardenErrorFields & { readonly permission: string; readonly resourceIdentifier: string }) {
    super(fields)
    this.permission = fields.permission
    this.resourceIdentifier = fields.resourceIdentifier
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), permission: this.permission, resourceIdentifier: this.resourceIdentifier }
  }
}

/** 404 `NOT_FOUND_ERROR`: `resourceIdentifier` does not exist. Not retried. */
export class NotFoundError extends WardenError {
  declare readonly status: 404
  declare readonly code: "NOT_FOUND_ERROR"

  readonly resourceIdentifier: string
  constructor(fields: WardenErrorFields & { readonly resourceIdentifier: string }) {
    super(fields)
    this.resourceIdentifier = fields.resourceIdentifier
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), resourceIdentifier: this.resourceIdentifier }
  }
}

/** 409 `CONFLICT_ERROR`. Not retried. */
export class ConflictError extends ReasonError {
  declare readonly status: 409
  declare readonly code: "CONFLICT_ERROR"
}

/** 412 `PRECONDITION_FAILED_ERROR`. Not retried. */
export class PreconditionFailedError extends ReasonError {
  declare readonly status: 412
  declare readonly code: "PRECONDITION_FAILED_ERROR"
}

/**
 * 429 `QUOTA_ERROR`: a quota was exceeded (`violations`, e.g. `analyze.message.requests_per_second`).
 * Not retried: the client's limiter learns the quota and paces the next calls.
 */
export class QuotaError extends WardenError {
  declare readonly status: 429
  declare readonly code: "QUOTA_ERROR"

  /** The quotas exceeded. */
  readonly violations: ReadonlyArray<QuotaViolation>
  constructor(fields: WardenErrorFields & { readonly violations: ReadonlyArray<QuotaViolation> }) {
    super(fields)
    this.violations = fields.violations
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), violations: this.violations }
  }
}

/** 503 `TRANSIENT_ERROR` (or a gateway's 502/503/504 page): still failing after the client's retries. */
export class TransientError extends ReasonError {
  declare readonly status: 503
  declare readonly code: "TRANSIENT_ERROR"
}

/** No answer came back (connection refused or reset), after the client's retries. */
export class ConnectionError extends WardenError {
  declare readonly status: undefined
  declare readonly code: "CONNECTION_ERROR"

  /** `Connect`, `Reset` or `Other`. */
  readonly reason: TransportFailure
  constructor(fields: WardenErrorFields & { readonly reason: TransportFailure }) {
    super(fields)
    this.reason = fields.reason
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason }
  }
}

/**
 * The call took longer than its `timeout` (code `TIMEOUT`), or every attempt ran into the per-attempt
 * timeout (code `ATTEMPT_TIMEOUT`). Not an `AbortError`: nobody cancelled it.
 */
export class TimeoutError extends WardenError {
  declare readonly status: undefined
  declare readonly code: "TIMEOUT" | "ATTEMPT_TIMEOUT"
}

/** The caller's `AbortSignal` cancelled the call (code `ABORTED`). Its `cause` is the signal's reason. */
export class AbortError extends WardenError {
  declare readonly status: undefined
  declare readonly code: "ABORTED"
}

/** An answer came back that is not what the contract says (`body` keeps its text). */
export class UnexpectedResponseError extends WardenError {
  declare readonly code: "UNEXPECTED_RESPONSE"

  /** The raw text of the answer. */
  readonly body: string
  constructor(fields: WardenErrorFields & { readonly body: string }) {
    super(fields)
    this.body = fields.body
  }
}

/** The client's settings cannot work (a missing key, a malformed URL): thrown by the constructor. */
export class WardenConfigError extends WardenError {
  declare readonly status: undefined
  declare readonly code: "CONFIG_ERROR"

  constructor(detail: string) {
    super({ code: "CONFIG_ERROR", detail })
  }
}

/** Any tagged failure of the Effect side that `fromFailure` maps. */
export type Failure = ApiError | TransportError | ResponseDecodeError | EffectRequestValidationError

/** The common fields of an Effect-side failure: endpoint, request id, attempts, the failure as cause. */
const common = (failure: Failure, endpoint: string | undefined) => {
  const info = callInfoOf(failure)
  return {
    endpoint: "endpoint" in failure ? failure.endpoint : endpoint,
    requestId: info?.requestId,
    attempts: info?.attempts,
    cause: failure
  }
}

/** The Promise client's error for an Effect-side failure (the failure is kept as `cause`). */
export const fromFailure = (failure: Failure, endpoint?: string): WardenError => {
  const base = common(failure, endpoint)
  switch (failure._tag) {
    case "RequestValidationError":
      return new RequestValidationError({
        ...base,
        attempts: 0,
        code: "REQUEST_VALIDATION_ERROR",
        detail: formatViolations(failure.fieldViolations),
        fieldViolations: failure.fieldViolations
      })
    case "TransportError":
      return failure.reason === "Timeout"
        ? new TimeoutError({ ...base, code: "ATTEMPT_TIMEOUT", detail: `${failure.endpoint}: ${failure.detail}` })
        : new ConnectionError({
            ...base,
            code: "CONNECTION_ERROR",
            reason: failure.reason,
            detail: failure.message
          })
    case "ResponseDecodeError":
      return new UnexpectedResponseError({
        ...base,
        status: failure.status,
        code: "UNEXPECTED_RESPONSE",
        detail: `${failure.endpoint}: ${failure.detail}`,
        body: failure.body
      })
  }
  const api = { ...base, status: failure.status, code: failure.code }
  const detail = failure.detail
  switch (failure._tag) {
    case "BadRequestError":
      return new BadRequestError({ ...api, detail, fieldViolations: failure.fieldViolations })
    case "AuthenticationError":
      return new AuthenticationError({ ...api, detail, reason: failure.reason })
    case "PermissionDeniedError":
      return new PermissionDeniedError({
        ...api,
        detail,
        permission: failure.permission,
        resourceIdentifier: failure.resourceIdentifier
      })
    case "NotFoundError":
      return new NotFoundError({ ...api, detail, resourceIdentifier: failure.resourceIdentifier })
    case "ConflictError":
      return new ConflictError({ ...api, detail, reason: failure.reason })
    case "PreconditionFailedError":
      return new PreconditionFailedError({ ...api, detail, reason: failure.reason })
    case "QuotaError":
      return new QuotaError({ ...api, detail, violations: failure.violations })
    case "TransientError":
      return new TransientError({ ...api, detail, reason: failure.reason })
  }
}
