/**
 * The control API under `/_sandbox/` (no API key; loopback clients only): inspect what the sandbox
 * received and recorded, and change how it behaves.
 *
 * | Method | Path | |
 * |---|---|---|
 * | GET | `/_sandbox/requests` | every request received (`?limit=N`: the last N), keys redacted |
 * | GET | `/_sandbox/feedback` | recorded feedback, with the raw body as received |
 * | GET | `/_sandbox/legacy-records` | legacy records (`?channelUuid=`) |
 * | GET | `/_sandbox/stats` | answers per endpoint and status |
 * | GET, PUT | `/_sandbox/faults` | the fault profile (PUT replaces it) |
 * | GET, PUT | `/_sandbox/quotas` | the quotas (PUT replaces them) |
 * | POST | `/_sandbox/reset` | back to the state at start |
 * | GET | `/_sandbox/health` | `{ "ok": true }` |
 */
import { FieldViolations } from "@warden/core"
import { Result, Schema } from "effect"
import type { Engine } from "./Engine.ts"
import * as Envelope from "./Envelope.ts"
import { FaultProfile } from "./Faults.ts"
import { QuotaConfig } from "./Quotas.ts"

/** The path prefix of the control API. */
export const PREFIX = "/_sandbox"

const decodeFaults = Schema.decodeUnknownResult(FaultProfile)
const decodeQuotas = Schema.decodeUnknownResult(QuotaConfig)
const strict = { errors: "all", onExcessProperty: "error" } as const

const isLoopback = (address: string | undefined): boolean =>
  address !== undefined && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."))

const parseBody = <A>(
  raw: string,
  decode: (u: unknown, o: typeof strict) => Result.Result<A, Schema.SchemaError>
): Result.Result<A, Envelope.Answer> => {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (e) {
    return Result.fail(Envelope.badBody(`the body is not valid JSON: ${(e as Error).message}`))
  }
  const decoded = decode(json, strict)
  return Result.isFailure(decoded)
    ? Result.fail(Envelope.badRequest(FieldViolations.fromSchemaError(decoded.failure)))
    : Result.succeed(decoded.success)
}

/** Answers one control request. */
export const handle = (
  engine: Engine,
  method: string,
  path: string,
  query: URLSearchParams,
  rawBody: string,
  remoteAddress: string | undefined
): Envelope.Answer => {
  if (!isLoopback(remoteAddress)) {
    return Envelope.permissionDenied("sandbox_control", `${PREFIX} is open to loopback clients only`)
  }
  const route = `${method} ${path.slice(PREFIX.length)}`
  switch (route) {
    case "GET /health":
      return Envelope.ok({ ok: true })
    case "GET /requests": {
      const all = engine.log.list()
      const limit = Number(query.get("limit") ?? Number.NaN)
      return Envelope.ok({ requests: Number.isInteger(limit) && limit >= 0 ? all.slice(all.length - limit) : all })
    }
    case "GET /feedback":
      return Envelope.ok({ feedback: engine.feedback.list() })
    case "GET /legacy-records":
      return Envelope.ok({ records: engine.legacy.list(query.get("channelUuid") ?? undefined) })
    case "GET /stats":
      return Envelope.ok(engine.log.stats())
    case "GET /faults":
      return Envelope.ok(engine.faults.current())
    case "PUT /faults": {
      const r = parseBody(rawBody, decodeFaults)
      if (Result.isFailure(r)) return r.failure
      engine.setFaults(r.success)
      return Envelope.ok(r.success)
    }
    case "GET /quotas":
      return Envelope.ok(engine.quotas.current())
    case "PUT /quotas": {
      const r = parseBody(rawBody, decodeQuotas)
      if (Result.isFailure(r)) return r.failure
      engine.setQuotas(r.success)
      return Envelope.ok(r.success)
    }
    case "POST /reset":
      engine.reset()
      return Envelope.ok({ ok: true })
    default:
      return Envelope.notFound(`${method} ${path}`)
  }
}
