/** The Promise side's errors made from the Effect side's, and the facts both carry. */
import { describe, expect, it } from "vitest"
import {
  attachCallInfo,
  AuthenticationError,
  QuotaError,
  RequestValidationError,
  TransportError,
  WardenErrors
} from "../src/index.ts"
import { isSupported } from "../src/NodeVersion.ts"

describe("Effect-side errors", () => {
  it("give status and code, and the request id and attempts once attached, without changing the wire envelope", () => {
    const error = AuthenticationError.fromReason("REASON_INVALID_CREDENTIALS")
    expect([error.status, error.code, error.requestId, error.attempts]).toEqual([
      401,
      "AUTHENTICATION_ERROR",
      undefined,
      undefined
    ])
    attachCallInfo(error, { requestId: "req_1", attempts: 2 })
    expect([error.requestId, error.attempts]).toEqual(["req_1", 2])
    expect(JSON.stringify(error)).not.toContain("req_1")
    const transport = attachCallInfo(
      new TransportError({ endpoint: "POST /analyze/v1/text", reason: "Reset", detail: "ECONNRESET" }),
      { requestId: "req_2", attempts: 5 }
    )
    expect([transport.requestId, transport.attempts]).toEqual(["req_2", 5])
  })
})

describe("WardenErrors.fromFailure", () => {
  it("makes a subclass per code with a one-line message: status, code, detail, request id, attempts", () => {
    const quota = attachCallInfo(
      QuotaError.fromViolations([{ quotaName: "analyze.message.requests_per_second", quotaValue: 10 }]),
      { requestId: "req_q", attempts: 1 }
    )
    const error = WardenErrors.fromFailure(quota, "POST /analyze/v1/text")
    expect(error).toBeInstanceOf(WardenErrors.QuotaError)
    expect(error).toBeInstanceOf(WardenErrors.WardenError)
    expect(error.message).toBe("429 QUOTA_ERROR: analyze.message.requests_per_second=10 (request req_q)")
    expect(error.name).toBe("QuotaError")
    expect(error.cause).toBe(quota)
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: "QuotaError",
      message: error.message,
      status: 429,
      code: "QUOTA_ERROR",
      endpoint: "POST /analyze/v1/text",
      requestId: "req_q",
      attempts: 1,
      violations: [{ quotaName: "analyze.message.requests_per_second", quotaValue: 10 }]
    })
  })

  it("says how many attempts when there were several, and 'not sent' for a body refused locally", () => {
    const reset = attachCallInfo(
      new TransportError({ endpoint: "POST /analyze/v1/text", reason: "Connect", detail: "ECONNREFUSED" }),
      { requestId: "req_c", attempts: 5 }
    )
    expect(WardenErrors.fromFailure(reset).message).toBe(
      "CONNECTION_ERROR: Connect failure calling POST /analyze/v1/text: ECONNREFUSED (request req_c, 5 attempts)"
    )
    const refused = WardenErrors.fromFailure(
      new RequestValidationError({
        endpoint: "POST /analyze/v1/text",
        fieldViolations: [{ field: "text", message: "is required" }]
      })
    )
    expect(refused).toBeInstanceOf(WardenErrors.BadRequestError)
    expect(refused.message).toBe("REQUEST_VALIDATION_ERROR: text: is required (not sent)")
  })
})

describe("Node.js version check", () => {
  it("accepts 22.19 and later, refuses older", () => {
    expect(["22.19.0", "22.20.1", "24.1.0"].map(isSupported)).toEqual([true, true, true])
    expect(["20.20.2", "22.18.0", "18.0.0"].map(isSupported)).toEqual([false, false, false])
  })
})
