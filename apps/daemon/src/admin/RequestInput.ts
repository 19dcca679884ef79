/**
 * Reading what a request brings, refusing what is wrong with a 4xx that names it: query parameters
 * (unknown ones, control characters, integers out of range, dates), path parameters (bad
 * percent-encoding) and JSON bodies (not JSON, over the size limit).
 */
import type { IncomingMessage } from "node:http"
import { Effect, Schema } from "effect"
import { AdminRefused, badParameter } from "./AdminError.ts"

/** The largest body the admin API reads: 1 MiB. Larger bodies get 413 `PAYLOAD_TOO_LARGE`. */
export const MAX_BODY_BYTES = 1024 * 1024

// Control characters (NUL included) are never part of a reference, a source id or a filter.
// biome-ignore lint/suspicious/noControlCharactersInRegex: what the check is about
const CONTROL = /[\u0000-\u001f\u007f]/u

/** A body field check: no control characters (a NUL would reach the database as a fault, not a 400). */
export const noControlCharacters = Schema.makeFilter<string>(
  (s) => !CONTROL.test(s) || "must not contain control characters"
)

/** A text parameter: refused when it holds control characters or is over 1,024 characters. */
export const text = (parameter: string, value: string): Effect.Effect<string, AdminRefused> =>
  CONTROL.test(value)
    ? Effect.fail(badParameter(parameter, "must not contain control characters"))
    : value.length > 1024
      ? Effect.fail(badParameter(parameter, "must be at most 1024 characters"))
      : Effect.succeed(value)

/**
 * The query parameters, refused when one is not among `known` or is given twice: a filter the API
 * ignores would answer with everything, which looks like a match.
 */
export const query = (
  params: URLSearchParams,
  known: ReadonlyArray<string>
): Effect.Effect<Map<string, string>, AdminRefused> =>
  Effect.gen(function* () {
    const out = new Map<string, string>()
    for (const [key, value] of params) {
      if (!known.includes(key)) {
        return yield* badParameter(
          key,
          known.length === 0 ? "this route takes no parameters" : `unknown parameter; known: ${known.join(", ")}`
        )
      }
      if (out.has(key)) return yield* badParameter(key, "given more than once")
      out.set(key, yield* text(key, value))
    }
    return out
  })

/** An integer parameter within bounds (`limit=abc`, `limit=0` are refused, not ignored). */
export const int = (
  parameter: string,
  value: string | undefined,
  bounds: { readonly min: number; readonly max: number; readonly fallback: number }
): Effect.Effect<number, AdminRefused> => {
  if (value === undefined) return Effect.succeed(bounds.fallback)
  const n = /^\d+$/u.test(value) ? Number(value) : Number.NaN
  return Number.isSafeInteger(n) && n >= bounds.min && n <= bounds.max
    ? Effect.succeed(n)
    : Effect.fail(badParameter(parameter, `must be an integer from ${bounds.min} to ${bounds.max}`))
}

/** A point in time: epoch milliseconds or an ISO 8601 date. */
export const instant = (
  parameter: string,
  value: string | undefined
): Effect.Effect<number | undefined, AdminRefused> => {
  if (value === undefined) return Effect.succeed(undefined)
  if (/^\d+$/u.test(value)) return Effect.succeed(Number(value))
  const ms = /^\d{4}-\d{2}-\d{2}/u.test(value) ? Date.parse(value) : Number.NaN
  return Number.isNaN(ms)
    ? Effect.fail(badParameter(parameter, "must be epoch milliseconds or an ISO 8601 date (2026-01-31T12:00:00Z)"))
    : Effect.succeed(ms)
}

/** A percent-encoded path segment, decoded (`%ZZ` is refused). */
export const pathSegment = (parameter: string, raw: string): Effect.Effect<string, AdminRefused> =>
  Effect.try({
    try: () => decodeURIComponent(raw),
    catch: () => badParameter(parameter, "is not valid percent-encoding")
  }).pipe(Effect.flatMap((value) => text(parameter, value)))

/**
 * The JSON body (undefined when empty). Over {@link MAX_BODY_BYTES}: 413, answered before the rest is
 * read when the client announced its length; not JSON: 400.
 */
export const jsonBody = (req: IncomingMessage): Effect.Effect<unknown, AdminRefused> =>
  Effect.callback<unknown, AdminRefused>((resume) => {
    const tooLarge = () =>
      new AdminRefused({
        status: 413,
        code: "PAYLOAD_TOO_LARGE",
        message: `the body is over ${MAX_BODY_BYTES} bytes (1 MiB), the admin API's limit`
      })
    const announced = Number(req.headers["content-length"] ?? Number.NaN)
    if (Number.isFinite(announced) && announced > MAX_BODY_BYTES) {
      req.resume()
      return resume(Effect.fail(tooLarge()))
    }
    const chunks: Array<Buffer> = []
    let size = 0
    let over = false
    req.on("data", (c: Buffer) => {
      size += c.length
      if (over) return
      if (size > MAX_BODY_BYTES) {
        over = true
        chunks.length = 0
        resume(Effect.fail(tooLarge()))
      } else chunks.push(c)
    })
    req.on("end", () => {
      if (over) return
      const body = Buffer.concat(chunks).toString("utf8")
      if (body.trim() === "") return resume(Effect.succeed(undefined))
      try {
        resume(Effect.succeed(JSON.parse(body)))
      } catch {
        resume(Effect.fail(new AdminRefused({ status: 400, code: "BAD_REQUEST", message: "the body is not JSON" })))
      }
    })
    req.on("error", () => {
      if (!over)
        resume(
          Effect.fail(new AdminRefused({ status: 400, code: "BAD_REQUEST", message: "the body could not be read" }))
        )
    })
  })
