/**
 * A sink that fails (its receiver down for a deploy, its disk full): one WARN line when it starts
 * failing, one INFO line when it delivers again, whatever happens in between (issue 38: 23 lines for
 * 3 items, a line per attempt per record), and the pace of its tries meanwhile.
 *
 * While it fails the sink worker tries one batch, its oldest records, at a time: the delay between
 * two tries is the connector SDK's backoff (500 ms doubling) capped at {@link PROBE_CAP_MILLIS}, so a
 * receiver back after a 10-minute deploy is found within a minute, and a receiver down for a day gets
 * one batch a minute, not every queued record on its own schedule.
 */
import type { Backoff } from "@warden/connector"
import { Duration, Effect } from "effect"
import * as OutboxDrainer from "../engine/OutboxDrainer.ts"

/** The longest wait between two tries of a failing sink (and between two retries of one record). */
export const PROBE_CAP_MILLIS = 60_000

/** Backoff of a failed delivery: 500 ms doubling up to a minute. */
export const retryBackoff: Backoff.Backoff = { initial: Duration.millis(500), max: Duration.millis(PROBE_CAP_MILLIS) }

/**
 * Delay before try `attempt` (1-based) after a failure: the connector SDK's one backoff, without its
 * jitter (the attempt count lives in the outbox row, so the delay is computed, not scheduled).
 */
export const retryDelayMillis = (attempt: number): number => OutboxDrainer.retryDelayMillis(retryBackoff, attempt)

/** A span of time as people say it: `45s`, `10m 3s`, `2h 5m`. */
export const formatSpan = (millis: number): string => {
  const seconds = Math.round(millis / 1000)
  if (seconds < 60) return `${Math.round(millis / 100) / 10}s`
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  return h > 0 ? `${h}h ${m}m` : `${m}m ${s}s`
}

/** One line of an error, at most 300 characters (a receiver's page of HTML is not a log line). */
const oneLine = (text: string): string => {
  const line = text.replace(/\s+/gu, " ").trim()
  return line.length > 300 ? `${line.slice(0, 297)}...` : line
}

/** A sink's failing spell, kept by its worker. */
export interface SinkOutage {
  /**
   * A whole batch failed and could be retried, at `now`: starts the spell (its one WARN line) when it is
   * not on. `since` is when the batch's oldest failure started (a spell from before a restart).
   * Answers when to try again.
   */
  readonly failed: (now: number, cause: string, since: number | undefined) => Effect.Effect<number>
  /** Records were delivered at `now`: ends the spell (its one INFO line, with how many records waited). */
  readonly delivered: (now: number, waited: Effect.Effect<number>) => Effect.Effect<void>
  /** Try the failing sink again at once (the batch just tried was past its window: dead-lettered). */
  readonly tryNow: () => void
  /** When the failing sink is tried next; `undefined` while it delivers. */
  readonly nextTry: () => number | undefined
  /** Since when the sink fails; `undefined` while it delivers. */
  readonly since: () => number | undefined
}

/** The spell of sink `name`, whose records are retried for `windowMillis` after their first failure. */
export const make = (name: string, windowMillis: number): SinkOutage => {
  let spell: { since: number; failures: number; next: number } | undefined
  return {
    failed: (now, cause, since) =>
      Effect.suspend(() => {
        if (spell !== undefined) {
          spell.failures++
          spell.next = now + retryDelayMillis(spell.failures)
          return Effect.succeed(spell.next)
        }
        const started = Math.min(since ?? now, now)
        spell = { since: started, failures: 1, next: now + retryDelayMillis(1) }
        const next = spell.next
        return Effect.logWarning(
          `sink ${name} failing: ${oneLine(cause)}; retrying until ${new Date(started + windowMillis).toISOString()}`
        ).pipe(Effect.annotateLogs({ sink: name }), Effect.as(next))
      }),
    delivered: (now, waited) =>
      Effect.suspend(() => {
        if (spell === undefined) return Effect.void
        const { since } = spell
        spell = undefined
        return Effect.flatMap(waited, (n) =>
          Effect.logInfo(
            `sink ${name} delivering again after ${formatSpan(now - since)}; ${n} record${n === 1 ? "" : "s"} waited`
          ).pipe(Effect.annotateLogs({ sink: name }))
        )
      }),
    tryNow: () => {
      if (spell !== undefined) spell.next = 0
    },
    nextTry: () => spell?.next,
    since: () => spell?.since
  }
}
