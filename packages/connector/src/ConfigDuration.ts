/**
 * Durations as operators write them, and bounds for them: `10s`, `500ms`, `5m`, `1h30m` (the short
 * forms of Vector, Prometheus and Go) or Effect's `10 seconds`, in config files and CLI flags alike. A
 * value no operator can mean (`pollInterval: 0s` polls a feed thousands of times a second,
 * `retry.initial` above `retry.max` never backs off as written) is refused with the bound in the
 * message, at the key's path.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"

const UNIT_MILLIS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000
}

const SHORT = /^-?(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d|w))+$/u
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w)/gu

/** What a duration string looks like, for the JSON Schema. */
export const description = "A duration such as '500ms', '10s', '5m', '1h', '1h30m' or '10 seconds'"

/** The problem reported for a value that is not a duration. */
export const expected = "expected a duration such as '500ms', '10s', '5m', '1h' or '10 seconds'"

/**
 * Parses a duration as an operator writes it: the short forms (`500ms`, `10s`, `5m`, `1h`, `2d`,
 * `1h30m`) or Effect's (`10 seconds`, `500 millis`), with an optional `-` (refused by the bounds of
 * {@link isAtLeast}, with a message that says so). `None` for anything else (a bare number is
 * refused: `10` could be seconds or milliseconds).
 *
 * @since 0.1.0
 */
export const parse = (input: string): Option.Option<Duration.Duration> => {
  const text = input.trim()
  if (SHORT.test(text)) {
    let millis = 0
    for (const m of text.matchAll(PART)) millis += Number(m[1]) * UNIT_MILLIS[m[2]!]!
    return Option.some(Duration.millis(text.startsWith("-") ? -millis : millis))
  }
  return /^-?\d/u.test(text) && !/^\d+(?:\.\d+)?$/u.test(text)
    ? Duration.fromInput(text as Duration.Input)
    : Option.none()
}

/**
 * A duration as code may write one: any `Duration.Input`, or a string in any form {@link parse}
 * reads (`"1s"`, `"5m"`).
 *
 * @since 0.1.0
 */
export type Input = Duration.Input | string

/**
 * A duration from a string in any form {@link parse} reads, or any other `Duration.Input`; throws on
 * an invalid one (for constants written in code, never for user input).
 *
 * @since 0.1.0
 */
export const decodeUnsafe = (input: Input): Duration.Duration =>
  typeof input === "string"
    ? Option.getOrThrowWith(parse(input), () => new Error(`not a duration: '${input}'`))
    : Duration.fromInputUnsafe(input)

/**
 * Writes a duration in the shortest exact short form (`90s`, `1h30m`, `250ms`): what `warden config
 * print` shows, and what {@link parse} reads back.
 *
 * @since 0.1.0
 */
export const format = (duration: Duration.Duration): string => {
  let millis = Duration.toMillis(duration)
  if (!Number.isFinite(millis)) return "infinity"
  if (millis === 0) return "0s"
  let out = ""
  for (const unit of ["d", "h", "m", "s"] as const) {
    const size = UNIT_MILLIS[unit]!
    if (millis >= size) {
      out += `${Math.floor(millis / size)}${unit}`
      millis %= size
    }
  }
  return millis > 0 ? `${out}${Number(millis.toFixed(6))}ms` : out
}

const transformation = SchemaTransformation.transformEffect<Duration.Duration, string>({
  decode: (s, options) =>
    Option.match(parse(s), {
      onNone: () => Effect.fail(new SchemaIssue.InvalidValue({ message: expected }, s, options)),
      onSome: Effect.succeed
    }),
  encode: (d) => Effect.succeed(format(d))
})

/**
 * A duration written as a string (`10s`, `10 seconds`), decoded to a `Duration` and encoded back in
 * the short form.
 *
 * @since 0.1.0
 */
export const DurationString = Schema.String.annotate({ description }).pipe(
  Schema.decodeTo(Schema.Duration, transformation)
)

/**
 * A check: the decoded duration is at least `minimum`.
 *
 * @since 0.1.0
 */
export const isAtLeast = (minimum: Input) => {
  const min = decodeUnsafe(minimum)
  return Schema.makeFilter<Duration.Duration>(
    (d) =>
      Duration.isGreaterThanOrEqualTo(d, min) ||
      (Duration.isZero(min) ? "must not be negative" : `must be at least ${format(min)}`)
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
        issue: `must not exceed ${high} (${format(s[low])} > ${format(s[high])})`
      }
  )

/**
 * A duration of at least `minimum` ({@link DurationString} with a bound).
 *
 * @since 0.1.0
 */
export const atLeast = (minimum: Input) => DurationString.check(isAtLeast(minimum))

/**
 * A duration key written as a string (`5m`, `5 minutes`) with a default (shown in the JSON Schema)
 * and a lower bound.
 *
 * @since 0.1.0
 */
export const withDefault = (value: string, minimum: Input = 0) =>
  Schema.String.annotate({ description, default: value })
    .pipe(Schema.decodeTo(Schema.Duration, transformation))
    .check(isAtLeast(minimum))
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))
