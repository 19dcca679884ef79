/**
 * The API's errors, one tagged class per error code. Each class IS the wire envelope
 * `{ "error": { "code", "details": { <camelCaseCode>: {...} } } }` (its `_tag` is never sent), so the
 * contract, the sandbox and the client all use the same schema; getters give the details directly.
 */
import * as Schema from "effect/Schema"
import { callInfoOf } from "./CallInfo.ts"
import { FieldViolation, formatViolations } from "./FieldViolation.ts"

/** The eight error codes of the spec, with their HTTP status. */
export const ERROR_STATUS = {
  BAD_REQUEST_ERROR: 400,
  AUTHENTICATION_ERROR: 401,
  PERMISSION_DENIED_ERROR: 403,
  NOT_FOUND_ERROR: 404,
  CONFLICT_ERROR: 409,
  PRECONDITION_FAILED_ERROR: 412,
  QUOTA_ERROR: 429,
  TRANSIENT_ERROR: 503
} as const
/** An API error code. */
export type ErrorCode = keyof typeof ERROR_STATUS

/** The `details` key of a code: the code in camel case (`BAD_REQUEST_ERROR` -> `badRequestError`). */
export const detailsKey = (code: string): string =>
  code.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

const envelope = <const Code extends ErrorCode, const Key extends string, D extends Schema.Top>(
  code: Code,
  key: Key,
  details: D
) =>
  Schema.Struct({
    code: Schema.Literal(code),
    details: Schema.Struct({ [key]: details } as { readonly [K in Key]: D })
  })

/** Authentication failure reasons (spec table). Open: another reason decodes too. */
export const AUTHENTICATION_REASONS = [
  "REASON_INVALID_CREDENTIALS",
  "REASON_EXPIRED_CREDENTIALS",
  "REASON_DISABLED_CREDENTIALS"
] as const

/** A quota exceeded, named as in `analyze.message.requests_per_second`. */
export const QuotaViolation = Schema.Struct({
  quotaName: Schema.String,
  quotaValue: Schema.Union([Schema.String, Schema.Number])
}).annotate({ identifier: "QuotaViolation" })
export type QuotaViolation = typeof QuotaViolation.Type

/** 400 `BAD_REQUEST_ERROR`: a required field is missing or a value is invalid. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the ApiErrorFacts getters are defined once, below
export class BadRequestError extends Schema.Error<BadRequestError>("BadRequestError")(
  {
    _tag: Schema.tagDefaultOmit("BadRequestError"),
    error: envelope(
      "BAD_REQUEST_ERROR",
      "badRequestError",
      Schema.Struct({ fieldViolations: Schema.Array(FieldViolation) })
    )
  },
  {
    httpApiStatus: 400,
    identifier: "BadRequestError",
    description: "A required field is missing or a value is invalid"
  }
) {
  /** Builds the error from a list of violations. */
  static fromViolations(fieldViolations: ReadonlyArray<FieldViolation>): BadRequestError {
    return new BadRequestError({
      _tag: "BadRequestError",
      error: { code: "BAD_REQUEST_ERROR", details: { badRequestError: { fieldViolations } } }
    })
  }
  /** Every invalid field. */
  get fieldViolations(): ReadonlyArray<FieldViolation> {
    return this.error.details.badRequestError.fieldViolations
  }
  /** What went wrong, after the code: `message` is `CODE: detail`. */
  get detail(): string {
    return formatViolations(this.fieldViolations)
  }
}

/** 401 `AUTHENTICATION_ERROR`: key missing, invalid, expired or disabled. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the ApiErrorFacts getters are defined once, below
export class AuthenticationError extends Schema.Error<AuthenticationError>("AuthenticationError")(
  {
    _tag: Schema.tagDefaultOmit("AuthenticationError"),
    error: envelope("AUTHENTICATION_ERROR", "authenticationError", Schema.Struct({ reason: Schema.String }))
  },
  { httpApiStatus: 401, identifier: "AuthenticationError", description: "Key missing, invalid, expired or disabled" }
) {
  /** Builds the error from a reason (`REASON_INVALID_CREDENTIALS`, ...). */
  static fromReason(reason: string): AuthenticationError {
    return new AuthenticationError({
      _tag: "AuthenticationError",
      error: { code: "AUTHENTICATION_ERROR", details: { authenticationError: { reason } } }
    })
  }
  /** Why the key was refused. */
  get reason(): string {
    return this.error.details.authenticationError.reason
  }
  /** What went wrong, after the code: `message` is `CODE: detail`. */
  get detail(): string {
    return this.reason
  }
}

/** 403 `PERMISSION_DENIED_ERROR`: the key lacks a permission for the action on the resource. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the ApiErrorFacts getters are defined once, below
export class PermissionDeniedError extends Schema.Error<PermissionDeniedError>("PermissionDeniedError")(
  {
    _tag: Schema.tagDefaultOmit("PermissionDeniedError"),
    error: envelope(
      "PERMISSION_DENIED_ERROR",
      "permissionDeniedError",
      Schema.Struct({ permission: Schema.String, resourceIdentifier: Schema.String })
    )
  },
  { httpApiStatus: 403, identifier: "PermissionDeniedError", description: "The key lacks permission" }
) {
  /** Builds the error. */
  static of(permission: string, resourceIdentifier: string): PermissionDeniedError {
    return new PermissionDeniedError({
      _tag: "PermissionDeniedError",
      error: { code: "PERMISSION_DENIED_ERROR", details: { permissionDeniedError: { permission, resourceIdentifier } } }
    })
  }
  /** The permission the key lacks. */
  get permission(): string {
    return this.error.details.permissionDeniedError.permission
  }
  /** The resource the action was on. */
  get resourceIdentifier(): string {
    return this.error.details.permissionDeniedError.resourceIdentifier
  }
  /** What went wrong, after the code: `message` is `CODE: detail`. */
  get detail(): string {
    return `${this.permission} on ${this.resourceIdentifier}`
  }
}

/** 404 `NOT_FOUND_ERROR`: the resource does not exist. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the ApiErrorFacts getters are defined once, below
export class NotFoundError extends Schema.Error<NotFoundError>("NotFoundError")(
  {
    _tag: Schema.tagDefaultOmit("NotFoundError"),
    error: envelope("NOT_FOUND_ERROR", "notFoundError", Schema.Struct({ resourceIdentifier: Schema.String }))
  },
  { httpApiStatus: 404, identifier: "NotFoundError", description: "The resource does not exist" }
) {
  /** Builds the error. */
  static of(resourceIdentifier: string): NotFoundError {
    return new NotFoundError({
      _tag: "NotFoundError",
      error: { code: "NOT_FOUND_ERROR", details: { notFoundError: { resourceIdentifier } } }
    })
  }
  /** The resource that does not exist. */
  get resourceIdentifier(): string {
    return this.error.details.notFoundError.resourceIdentifier
  }
  /** What went wrong, after the code: `message` is `CODE: detail`. */
  get detail(): string {
    return this.resourceIdentifier
  }
}

/** 409 `CONFLICT_ERROR`: conflict with the current state of a resource. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the ApiErrorFacts getters are defined once, below
export class ConflictError extends Schema.Error<ConflictError>("ConflictError")(
  {
    _tag: Schema.tagDefaultOmit("ConflictError"),
    error: envelope("CONFLICT_ERROR", "conflictError", Schema.Struct({ reason: Schema.String }))
  },
  { httpApiStatus: 409, identifier: "ConflictError", description: "Conflict with the current state of a resource" }
) {
  /** Builds the error. */
  static fromReason(reason: string): ConflictError {
    return new ConflictError({
      _tag: "ConflictError",
      error: { code: "CONFLICT_ERROR", details: { conflictError: { reason } } }
    })
  }
  /** What conflicts. */
  get reason(): string {
    return this.error.details.conflictError.reason
  }
  /** What went wrong, after the code: `message` is `CODE: detail`. */
  get detail(): string {
    return this.reason
  }
}

/** 412 `PRECONDITION_FAILED_ERROR`: a required precondition is not met. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the ApiErrorFacts getters are defined once, below
export class PreconditionFailedError extends Schema.Error<PreconditionFailedError>("PreconditionFailedError")(
  {
    _tag: Schema.tagDefaultOmit("PreconditionFailedError"),
    error: envelope("PRECONDITION_FAILED_ERROR", "preconditionFailedError", Schema.Struct({ reason: Schema.String }))
  },
  { httpApiStatus: 412, identifier: "PreconditionFailedError", description: "A required precondition is not met" }
) {
  /** Builds the error. */
  static fromReason(reason: string): PreconditionFailedError {
    return new PreconditionFailedError({
      _tag: "PreconditionFailedError",
      error: { code: "PRECONDITION_FAILED_ERROR", details: { preconditionFailedError: { reason } } }
    })
  }
  /** The precondition not met. */
  get reason(): string {
    return this.error.details.preconditionFailedError.reason
  }
  /** What went wrong, after the code: `message` is `CODE: detail`. */
  get detail(): string {
    return this.reason
  }
}

/** 429 `QUOTA_ERROR`: the organisation exceeded a quota, named in `violations`. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the ApiErrorFacts getters are defined once, below
export class QuotaError extends Schema.Error<QuotaError>("QuotaError")(
  {
    _tag: Schema.tagDefaultOmit("QuotaError"),
    error: envelope("QUOTA_ERROR", "quotaError", Schema.Struct({ violations: Schema.Array(QuotaViolation) }))
  },
  { httpApiStatus: 429, identifier: "QuotaError", description: "The organisation exceeded a quota" }
) {
  /** Builds the error. */
  static fromViolations(violations: ReadonlyArray<QuotaViolation>): QuotaError {
    return new QuotaError({
      _tag: "QuotaError",
      error: { code: "QUOTA_ERROR", details: { quotaError: { violations } } }
    })
  }
  /** The quotas exceeded. */
  get violations(): ReadonlyArray<QuotaViolation> {
    return this.error.details.quotaError.violations
  }
  /** What went wrong, after the code: `message` is `CODE: detail`. */
  get detail(): string {
    return this.violations.map((v) => `${v.quotaName}=${v.quotaValue}`).join(", ")
  }
}

/** 503 `TRANSIENT_ERROR`: a transient server-side problem; the only code that is retried. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the ApiErrorFacts getters are defined once, below
export class TransientError extends Schema.Error<TransientError>("TransientError")(
  {
    _tag: Schema.tagDefaultOmit("TransientError"),
    error: envelope("TRANSIENT_ERROR", "transientError", Schema.Struct({ reason: Schema.String }))
  },
  { httpApiStatus: 503, identifier: "TransientError", description: "Transient server-side problem; retry with backoff" }
) {
  /** Builds the error. */
  static fromReason(reason: string): TransientError {
    return new TransientError({
      _tag: "TransientError",
      error: { code: "TRANSIENT_ERROR", details: { transientError: { reason } } }
    })
  }
  /** The server's reason. */
  get reason(): string {
    return this.error.details.transientError.reason
  }
  /** What went wrong, after the code: `message` is `CODE: detail`. */
  get detail(): string {
    return this.reason
  }
}

/**
 * The facts every API error gives besides its details: HTTP status, code, and (once the transport
 * has failed the call with it) the request id and attempts.
 */
export interface ApiErrorFacts<Status extends number, Code extends ErrorCode> {
  /** The HTTP status of the answer. */
  readonly status: Status
  /** The error code of the envelope. */
  readonly code: Code
  /** The `x-request-id` of the call; `undefined` on an error not (yet) returned by the transport. */
  readonly requestId: string | undefined
  /** Attempts made before the call failed with this error; `undefined` as `requestId`. */
  readonly attempts: number | undefined
}

/** Any error the API answers with. */
export type ApiError =
  | BadRequestError
  | AuthenticationError
  | PermissionDeniedError
  | NotFoundError
  | ConflictError
  | PreconditionFailedError
  | QuotaError
  | TransientError

/** The error class of each code. */
export const ERROR_CLASSES = {
  BAD_REQUEST_ERROR: BadRequestError,
  AUTHENTICATION_ERROR: AuthenticationError,
  PERMISSION_DENIED_ERROR: PermissionDeniedError,
  NOT_FOUND_ERROR: NotFoundError,
  CONFLICT_ERROR: ConflictError,
  PRECONDITION_FAILED_ERROR: PreconditionFailedError,
  QUOTA_ERROR: QuotaError,
  TRANSIENT_ERROR: TransientError
} as const

export interface BadRequestError extends ApiErrorFacts<400, "BAD_REQUEST_ERROR"> {}
export interface AuthenticationError extends ApiErrorFacts<401, "AUTHENTICATION_ERROR"> {}
export interface PermissionDeniedError extends ApiErrorFacts<403, "PERMISSION_DENIED_ERROR"> {}
export interface NotFoundError extends ApiErrorFacts<404, "NOT_FOUND_ERROR"> {}
export interface ConflictError extends ApiErrorFacts<409, "CONFLICT_ERROR"> {}
export interface PreconditionFailedError extends ApiErrorFacts<412, "PRECONDITION_FAILED_ERROR"> {}
export interface QuotaError extends ApiErrorFacts<429, "QUOTA_ERROR"> {}
export interface TransientError extends ApiErrorFacts<503, "TRANSIENT_ERROR"> {}

for (const ErrorClass of Object.values(ERROR_CLASSES)) {
  Object.defineProperties(ErrorClass.prototype, {
    status: {
      get(this: ApiError) {
        return ERROR_STATUS[this.error.code]
      }
    },
    code: {
      get(this: ApiError) {
        return this.error.code
      }
    },
    message: {
      get(this: ApiError) {
        return `${this.error.code}: ${this.detail}`
      }
    },
    requestId: {
      get(this: ApiError) {
        return callInfoOf(this)?.requestId
      }
    },
    attempts: {
      get(this: ApiError) {
        return callInfoOf(this)?.attempts
      }
    }
  })
}

/** Every API error as a decodable union (the wire envelope of each code). */
export const ApiErrorSchema = Schema.Union([
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  PreconditionFailedError,
  QuotaError,
  TransientError
])

/**
 * The shape every error body has, whatever its code: `{ error: { code, details } }` with exactly one
 * field in `details`, named after the code in camel case.
 */
export const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String,
    details: Schema.Record(Schema.String, Schema.Unknown)
  })
})
  .check(
    Schema.makeFilter((e) => {
      const keys = Object.keys(e.error.details)
      const expected = detailsKey(e.error.code)
      return (
        (keys.length === 1 && keys[0] === expected) || {
          path: ["error", "details"],
          issue: `must hold exactly one field, ${expected}; got ${keys.length === 0 ? "none" : keys.join(", ")}`
        }
      )
    })
  )
  .annotate({ identifier: "ErrorEnvelope" })
export type ErrorEnvelope = typeof ErrorEnvelope.Type
