/**
 * `@warden/legacy`: the legacy batch endpoint for any number of messages — local checks, chunks of at
 * most 100, and one merged `{ data, errors }` with positions in the caller's array. For Promise code,
 * `WardenLegacy` and its errors (`WardenError` and one subclass per code); for Effect code, the
 * `LegacyBatch` service.
 */
import "@warden/core/node-version"

export {
  AbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
  QuotaError,
  RequestValidationError,
  TimeoutError,
  TransientError,
  UnexpectedResponseError,
  WardenConfigError,
  WardenError
} from "@warden/core/errors"
export * as LegacyBatch from "./LegacyBatch.ts"
export { type RequestOptions, WardenLegacy, type WardenLegacyOptions } from "./WardenLegacy.ts"
