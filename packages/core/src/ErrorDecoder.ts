/**
 * From an HTTP answer that is not a success (status + raw body text) to the right tagged error.
 * Anything that is not a valid envelope of a known code becomes `ResponseDecodeError`, keeping the
 * status and the raw text so nothing the server said is lost, except a 502/503/504 whose body is not
 * JSON at all (a proxy's HTML page): that is a `TransientError`, retried like the API's own 503.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { type ApiError, ApiErrorSchema, ERROR_STATUS, ErrorEnvelope, TransientError } from "./ApiErrors.ts"
import { ResponseDecodeError } from "./ClientErrors.ts"
import { formatViolations, fromSchemaError } from "./FieldViolation.ts"

const decodeEnvelope = Schema.decodeUnknownResult(ErrorEnvelope)
const decodeApiErrorBody = Schema.decodeUnknownResult(ApiErrorSchema)

const MAX_RAW_IN_MESSAGE = 200

/** Statuses a gateway (not the API) answers with when the API is unreachable: 502, 503, 504. */
export const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504])

const parseJson = (text: string): Result.Result<unknown, string> => {
  try {
    return Result.succeed(JSON.parse(text))
  } catch {
    const start = text.trimStart().slice(0, 15).toLowerCase()
    return Result.fail(
      start.startsWith("<!doctype") || start.startsWith("<html")
        ? "the body is an HTML page, not a JSON error envelope"
        : `the body is not JSON: ${JSON.stringify(text.slice(0, MAX_RAW_IN_MESSAGE))}`
    )
  }
}

/**
 * Decodes an error answer. `endpoint` names the call in the error (e.g. `POST /analyze/v1/text`).
 * The code decides the class; a status that disagrees with the code is reported in `detail` of a
 * `ResponseDecodeError`, since trusting either half alone could mis-route a retry.
 */
export const decodeApiError = (endpoint: string, status: number, body: string): ApiError | ResponseDecodeError => {
  const fail = (detail: string) => new ResponseDecodeError({ endpoint, status, body, detail })
  const json = parseJson(body)
  if (Result.isFailure(json)) {
    // A proxy or load balancer answering for an API that is down or restarting: the API did not
    // answer at all, so it is transient like a 503 TRANSIENT_ERROR, and retried the same way.
    if (GATEWAY_STATUSES.has(status)) return TransientError.fromReason(`HTTP ${status} from a gateway: ${json.failure}`)
    return fail(json.failure)
  }
  const envelope = decodeEnvelope(json.success, { errors: "all" })
  if (Result.isFailure(envelope)) {
    return fail(`not an error envelope: ${formatViolations(fromSchemaError(envelope.failure))}`)
  }
  const code = envelope.success.error.code
  if (!Object.hasOwn(ERROR_STATUS, code)) return fail(`unknown error code ${code}`)
  const expectedStatus = ERROR_STATUS[code as keyof typeof ERROR_STATUS]
  if (expectedStatus !== status) return fail(`error code ${code} belongs with HTTP ${expectedStatus}, got ${status}`)
  const decoded = decodeApiErrorBody(json.success, { errors: "all" })
  if (Result.isFailure(decoded)) {
    return fail(`invalid ${code} details: ${formatViolations(fromSchemaError(decoded.failure))}`)
  }
  return decoded.success
}
