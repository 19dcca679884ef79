import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import {
  AuthenticationError,
  type BadRequestError,
  type ConflictError,
  decodeApiError,
  ERROR_CLASSES,
  ERROR_STATUS,
  type NotFoundError,
  type PermissionDeniedError,
  type PreconditionFailedError,
  QuotaError,
  ResponseDecodeError,
  TransientError
} from "../src/index.ts"

const envelopes = {
  BAD_REQUEST_ERROR: { badRequestError: { fieldViolations: [{ field: "post.countryCode", message: "bad" }] } },
  AUTHENTICATION_ERROR: { authenticationError: { reason: "REASON_EXPIRED_CREDENTIALS" } },
  PERMISSION_DENIED_ERROR: {
    permissionDeniedError: { permission: "reseller_fields", resourceIdentifier: "ocrEnabled" }
  },
  NOT_FOUND_ERROR: { notFoundError: { resourceIdentifier: "analysis/1" } },
  CONFLICT_ERROR: { conflictError: { reason: "already recorded" } },
  PRECONDITION_FAILED_ERROR: { preconditionFailedError: { reason: "channel disabled" } },
  QUOTA_ERROR: { quotaError: { violations: [{ quotaName: "analyze.message.requests_per_second", quotaValue: "10" }] } },
  TRANSIENT_ERROR: { transientError: { reason: "upstream timeout" } }
} as const

describe("decodeApiError", () => {
  it.each(Object.entries(envelopes))("decodes %s into its class with its details", (code, details) => {
    const body = JSON.stringify({ error: { code, details } })
    const error = decodeApiError("POST /analyze/v1/text", ERROR_STATUS[code as keyof typeof ERROR_STATUS], body)
    expect(error).toBeInstanceOf(ERROR_CLASSES[code as keyof typeof ERROR_CLASSES])
    expect(error.message).toContain(code)
    // The class encodes back to exactly the envelope the server sent: no `_tag` on the wire.
    expect(Schema.encodeUnknownSync(ERROR_CLASSES[code as keyof typeof ERROR_CLASSES] as any)(error)).toEqual({
      error: { code, details }
    })
  })

  it("gives each class its details directly", () => {
    const get = (code: keyof typeof envelopes) =>
      decodeApiError("x", ERROR_STATUS[code], JSON.stringify({ error: { code, details: envelopes[code] } }))
    expect((get("BAD_REQUEST_ERROR") as BadRequestError).fieldViolations).toEqual([
      { field: "post.countryCode", message: "bad" }
    ])
    expect((get("AUTHENTICATION_ERROR") as AuthenticationError).reason).toBe("REASON_EXPIRED_CREDENTIALS")
    expect((get("PERMISSION_DENIED_ERROR") as PermissionDeniedError).permission).toBe("reseller_fields")
    expect((get("NOT_FOUND_ERROR") as NotFoundError).resourceIdentifier).toBe("analysis/1")
    expect((get("CONFLICT_ERROR") as ConflictError).reason).toBe("already recorded")
    expect((get("PRECONDITION_FAILED_ERROR") as PreconditionFailedError).reason).toBe("channel disabled")
    expect((get("QUOTA_ERROR") as QuotaError).violations[0]?.quotaName).toBe("analyze.message.requests_per_second")
    expect((get("TRANSIENT_ERROR") as TransientError).reason).toBe("upstream timeout")
  })

  it("turns a garbage body into ResponseDecodeError keeping status and raw text", () => {
    const error = decodeApiError("POST /analyze/v1/text", 500, "oops{")
    expect(error).toBeInstanceOf(ResponseDecodeError)
    expect(error).toMatchObject({ status: 500, body: "oops{" })
  })

  it("a gateway's HTML page (502/503/504) is a TransientError: the API did not answer", () => {
    const html = "<!DOCTYPE html><html><body>502 Bad Gateway</body></html>"
    for (const status of [502, 503, 504]) {
      const error = decodeApiError("POST /analyze/v1/text", status, html)
      expect(error).toBeInstanceOf(TransientError)
      expect((error as TransientError).reason).toBe(
        `HTTP ${status} from a gateway: the body is an HTML page, not a JSON error envelope`
      )
    }
  })

  it("an HTML page with another status is a ResponseDecodeError keeping status and body", () => {
    const html = "<!DOCTYPE html><html><body>Internal error</body></html>"
    const error = decodeApiError("POST /analyze/v1/text", 500, html)
    expect(error).toBeInstanceOf(ResponseDecodeError)
    expect(error).toMatchObject({ status: 500, body: html })
    expect(error.message).toContain("HTML")
  })

  it("refuses an envelope whose details do not hold exactly the camel-case field", () => {
    const body = JSON.stringify({
      error: { code: "TRANSIENT_ERROR", details: { transientError: { reason: "x" }, extra: {} } }
    })
    expect(decodeApiError("x", 503, body)).toBeInstanceOf(ResponseDecodeError)
  })

  it("refuses an unknown code and a code answered with the wrong status", () => {
    const unknown = JSON.stringify({ error: { code: "TEAPOT_ERROR", details: { teapotError: {} } } })
    expect(decodeApiError("x", 418, unknown)).toBeInstanceOf(ResponseDecodeError)
    const wrong = JSON.stringify({ error: { code: "TRANSIENT_ERROR", details: { transientError: { reason: "x" } } } })
    expect(decodeApiError("x", 500, wrong)).toBeInstanceOf(ResponseDecodeError)
  })

  it("builds errors with the spec's envelope", () => {
    expect(
      Schema.encodeUnknownSync(QuotaError)(QuotaError.fromViolations([{ quotaName: "q", quotaValue: 1 }]))
    ).toEqual({
      error: { code: "QUOTA_ERROR", details: { quotaError: { violations: [{ quotaName: "q", quotaValue: 1 }] } } }
    })
    expect(String(AuthenticationError.fromReason("REASON_INVALID_CREDENTIALS"))).toContain("REASON_INVALID_CREDENTIALS")
  })
})
