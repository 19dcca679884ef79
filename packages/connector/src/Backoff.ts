/**
 * Backoff after a failure, the one way: `initial` doubles per consecutive failure up to `max`, each
 * delay jittered by ±20% so many sources failing together do not retry in step.
 *
 * A connector puts {@link Settings} in its config schema (`retry: { initial, max }`, with its own
 * defaults) and either runs an effect under {@link schedule}, or, where it reports the wait itself
 * (an `error` event's `retryInMillis`), asks {@link delay} for the wait of attempt N. Both compute the
 * same delays.
 *
 * ```ts
 * const Config = Schema.Struct({ url: Schema.String, retry: Backoff.Settings({ initial: "1 second", max: "5 minutes" }) })
 * fetchPage.pipe(Effect.retry(Backoff.schedule(config.retry)))
 * ```
 *
 * @since 0.2.0
 */
import { Duration, Effect, Schedule, Schema } from "effect"
import * as ConfigDuration from "./ConfigDuration.ts"

/** Decoded backoff settings. */
export interface Backoff {
  readonly initial: Duration.Duration
  readonly max: Duration.Duration
}

/**
 * The config schema of a backoff, `{ initial, max }` written as durations (`"1 second"`), each with
 * the given default and at least `minimum`; `initial` must not exceed `max`. The key itself may be
 * left out of the user's config (every field defaults).
 */
export const Settings = (
  defaults: { readonly initial: string; readonly max: string },
  minimum: Duration.Input = "10 millis"
) =>
  Schema.Struct({
    initial: ConfigDuration.withDefault(defaults.initial, minimum).annotate({
      description: `Wait after the first failure (default ${defaults.initial})`
    }),
    max: ConfigDuration.withDefault(defaults.max, minimum).annotate({
      description: `Longest wait between tries (default ${defaults.max})`
    })
  })
    .check(ConfigDuration.ordered("initial", "max"))
    .annotate({
      description: "Backoff after a failure: `initial` doubles per consecutive failure up to `max`, ±20% jitter"
    })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed({})))

const jitter = (millis: number, random: () => number): number => Math.round(millis * (0.8 + random() * 0.4))

/** The un-jittered wait before retry number `attempt` (1 = after the first failure). */
export const baseMillis = (backoff: Backoff, attempt: number): number => {
  const initial = Duration.toMillis(backoff.initial)
  const max = Duration.toMillis(backoff.max)
  // Cap the exponent: 2 ** 1100 is Infinity, and min(Infinity, max) is fine, but keep it a number.
  return Math.min(max, initial * 2 ** Math.min(Math.max(0, attempt - 1), 60))
}

/**
 * The wait before retry number `attempt` (1 = after the first failure), jittered ±20%. `random` is for
 * tests; the default is `Math.random`.
 */
export const delay = (backoff: Backoff, attempt: number, random: () => number = Math.random): Duration.Duration =>
  Duration.millis(jitter(baseMillis(backoff, attempt), random))

/** {@link delay} in milliseconds, for an `error` event's `retryInMillis`. */
export const delayMillis = (backoff: Backoff, attempt: number, random: () => number = Math.random): number =>
  Duration.toMillis(delay(backoff, attempt, random))

/**
 * The backoff as a `Schedule` (for `Effect.retry` / `Effect.repeat` / `Stream.retry`): recurs for ever,
 * with the delays of {@link delay}. Bound the tries with `Schedule.both(Schedule.recurs(n))` if needed.
 */
export const schedule = (backoff: Backoff): Schedule.Schedule<Duration.Duration> =>
  Schedule.exponential(backoff.initial, 2).pipe(
    Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, backoff.max))),
    Schedule.jittered
  )
