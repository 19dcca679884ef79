/**
 * Warnings a loop would log once per attempt or per record (a sink's failed deliveries, a batch handed
 * back, a worker's failed step), at most one line a minute per key: the first at once, the next once the
 * minute has passed, saying how many were left out in between. A full jsonl disk logged ~310 warnings a
 * second, one per record of every retried batch (issue 35); a part that is down altogether is the
 * Outage's two lines instead, and these are for what goes wrong while it is up.
 */
import { type Cause, Clock, Effect, type LogLevel } from "effect"

/** Default interval between two lines of one key. */
export const EVERY_MILLIS = 60_000

/** A limiter of repeated warnings. */
export interface RepeatedWarnings {
  /**
   * Logs `message` (with `cause`, when given) at `level` unless a line of `key` was logged less than the
   * interval ago; then it is only counted, and the next line of `key` says how many were left out.
   */
  readonly log: (
    key: string,
    level: Extract<LogLevel.LogLevel, "Warn" | "Error">,
    message: string,
    cause?: Cause.Cause<unknown>
  ) => Effect.Effect<void>
}

/** A limiter: one line per key per `everyMillis`. */
export const make = (everyMillis: number = EVERY_MILLIS): RepeatedWarnings => {
  const keys = new Map<string, { at: number; left: number }>()
  return {
    log: (key, level, message, cause) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const seen = keys.get(key)
        if (seen !== undefined && now - seen.at < everyMillis) {
          seen.left++
          return Effect.void
        }
        const left = seen?.left ?? 0
        keys.set(key, { at: now, left: 0 })
        const text =
          left === 0
            ? message
            : `${message} (${left} more like this in the last ${Math.round((now - seen!.at) / 1000)} s)`
        const log = Effect.logWithLevel(level)
        return cause === undefined ? log(text) : log(text, cause)
      })
  }
}
