// The "browser" export of @warden/v1: the client sends an API key, which the API's terms forbid in
// client-side code, so resolving this package for a browser bundle fails loudly, at load. Every name
// the package exports is here too, so the bundle builds and the message below is what is seen.
const message =
  "server-only: API keys must not be used client-side (@warden/v1 runs on Node.js servers; call your own backend from the browser)"
throw new Error(message)

/** Never constructed: loading this module throws first. */
class ServerOnly {
  constructor() {
    throw new Error(message)
  }
}

export {
  ServerOnly as Warden,
  ServerOnly as AnalyzeV1,
  ServerOnly as FeedbackV1,
  ServerOnly as Sent,
  ServerOnly as V1Client,
  ServerOnly as WardenError,
  ServerOnly as BadRequestError,
  ServerOnly as RequestValidationError,
  ServerOnly as AuthenticationError,
  ServerOnly as PermissionDeniedError,
  ServerOnly as NotFoundError,
  ServerOnly as ConflictError,
  ServerOnly as PreconditionFailedError,
  ServerOnly as QuotaError,
  ServerOnly as TransientError,
  ServerOnly as ConnectionError,
  ServerOnly as TimeoutError,
  ServerOnly as AbortError,
  ServerOnly as UnexpectedResponseError,
  ServerOnly as WardenConfigError
}
