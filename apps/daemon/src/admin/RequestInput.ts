/**
 * Reading what a request brings, refusing what is wrong with a 400 that names it: query parameters
 * (unknown ones, control characters, integers out of range, dates) and path parameters (control
 * characters). Bodies are decoded by the HttpApi (`AdminApi`); their size is checked by `AdminMiddleware`.
 */
import { Effect, Schema } from "effect"
import { type AdminRefused, badParameter } from "./AdminError.ts"

/** The largest body the admin API reads: 1 MiB. Larger bodies get 413 `PAYLOAD_TOO_LARGE` (`AdminMiddleware`). */
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
