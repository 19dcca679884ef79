/** `--since` of the commands that read a window of stored data: a duration back from now, or an instant. */
import { ConfigDuration } from "@warden/connector"
import { Duration, Option } from "effect"

/** The start of the window (epoch millis), or `undefined` when `text` is neither a duration nor an ISO instant. */
export const parse = (text: string, now: number): number | undefined => {
  const duration = ConfigDuration.parse(text)
  if (Option.isSome(duration)) {
    const millis = Duration.toMillis(duration.value)
    return millis >= 0 ? now - millis : undefined
  }
  const at = /^\d{4}-\d{2}-\d{2}/u.test(text) ? Date.parse(text) : Number.NaN
  return Number.isNaN(at) ? undefined : at
}

/** What `--since` takes, for error messages. */
export const EXPECTED = "a duration back from now (7d, 24h, 30m) or an ISO date-time (2026-11-01T00:00:00Z)"
