/**
 * Failures raised on the client's side of the wire: a body refused before sending, no answer at all,
 * or an answer that is not what the contract says.
 */
import * as Schema from "effect/Schema"
import { attachCallInfo, type CallInfo, callInfoOf } from "./CallInfo.ts"
import { FieldViolation, formatViolations } from "./FieldViolation.ts"

/**
 * A request body that breaks the contract, refused before any network call. Same `fieldViolations`
 * shape as a 400 from the API, so callers handle both alike.
 */
export class RequestValidationError extends Schema.TaggedError<RequestValidationError>()("RequestValidationError", {
  endpoint: Schema.String,
  fieldViolations: Schema.Array(FieldViolation)
}) {
  override get message(): string {
    return `invalid request to ${this.endpoint}: ${formatViolations(this.fieldViolations)}`
  }
}

/** Why no answer came back. */
export const TransportFailure = Schema.Literals(["Connect", "Reset", "Timeout", "Aborted", "Other"])
export type TransportFailure = typeof TransportFailure.Type

/** No HTTP answer came back: connection refused or reset, a timeout. Retried by the transport. */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  endpoint: Schema.String,
  reason: TransportFailure,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.reason} failure calling ${this.endpoint}: ${this.detail}`
  }
  /** The `x-request-id` of the call, once the transport failed it with this error. */
  get requestId(): string | undefined {
    return callInfoOf(this)?.requestId
  }
  /** Attempts made before the call failed, once the transport failed it with this error. */
  get attempts(): number | undefined {
    return callInfoOf(this)?.attempts
  }
}

/** An answer came back but its body is not what the contract says; keeps the status and raw text. */
export class ResponseDecodeError extends Schema.TaggedError<ResponseDecodeError>()("ResponseDecodeError", {
  endpoint: Schema.String,
  status: Schema.Int,
  body: Schema.String,
  detail: Schema.String
}) {
  /** The error for a call's answer (its status and text), carrying the call's request id and attempts. */
  static fromAnswer(
    endpoint: string,
    answer: { readonly status: number; readonly body: string } & CallInfo,
    detail: string
  ): ResponseDecodeError {
    return attachCallInfo(new ResponseDecodeError({ endpoint, status: answer.status, body: answer.body, detail }), {
      requestId: answer.requestId,
      attempts: answer.attempts
    })
  }
  override get message(): string {
    return `unexpected ${this.status} answer from ${this.endpoint}: ${this.detail}`
  }
  /** The `x-request-id` of the call, once the transport failed it with this error. */
  get requestId(): string | undefined {
    return callInfoOf(this)?.requestId
  }
  /** Attempts made before the call failed, once the transport failed it with this error. */
  get attempts(): number | undefined {
    return callInfoOf(this)?.attempts
  }
}
