/**
 * Bounds for the durations of a connector's config: a value no operator can mean (`pollInterval:
 * 0 seconds` polls a feed thousands of times a second, `retry.initial` above `retry.max` never backs
 * off as written) is refused with the bound in the message, at the key's path.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Schema } from "effect"

/**
 * A check: the decoded duration is at least `minimum`.
 *
 * @since 0.1.0
 */
export const isAtLeast = (minimum: Duration.Input) => {
  const min = Duration.fromInputUnsafe(minimum)
  return Schema.makeFilter<Duration.Duration>(
    (d) =>
      Duration.isGreaterThanOrEqualTo(d, min) ||
      (Duration.isZero(min) ? "must not be negative" : `must be at least ${Duration.format(min)}`)
  )
}

/**
 * A struct check: the duration at `low` does not exceed the one at `high` (reported at `low`).
 *
 * @since 0.1.0
 */
export const ordered = <K extends string>(low: K, high: K) =>
  Schema.makeFilter<{ readonly [k in K]: Duration.Duration }>(
    (s) =>
      Duration.isLessThanOrEqualTo(s[low], s[high]) || {
        path: [low],
        issue: `must not exceed ${high} (${Duration.format(s[low])} > ${Duration.format(s[high])})`
      }
  )

/**
 * A duration key written as a string (`5 minutes`) with a default and a lower bound.
 *
 * @since 0.1.0
 */
export const withDefault = (value: string, minimum: Duration.Input = 0) =>
  Schema.DurationFromString.check(isAtLeast(minimum)).pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))
