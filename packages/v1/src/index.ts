/**
 * `@warden/v1`: typed clients of the v1 endpoints. For Promise code, `Warden` (`new Warden()`,
 * `await warden.analyze.text(...)`) and its errors (`WardenError` and one subclass per code); for
 * Effect code, the services `AnalyzeV1` (text, image, username) and `FeedbackV1` (text, image) on
 * `@warden/transport`.
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
export * as AnalyzeV1 from "./AnalyzeV1.ts"
export * as FeedbackV1 from "./FeedbackV1.ts"
export * as Sent from "./Sent.ts"
export * as V1Client from "./V1Client.ts"
export { type Analyze, type Feedback, type RequestOptions, Warden, type WardenOptions } from "./Warden.ts"
