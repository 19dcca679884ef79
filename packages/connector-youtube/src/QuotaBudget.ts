/**
 * The daily quota budget of the YouTube Data API: every call's cost is counted against `dailyQuota`,
 * which Google resets at midnight Pacific time. Polling keeps `quotaReserve` units for moderation
 * actions, and its interval stretches so that the budget lasts until the reset. The remaining budget
 * is the gauge `warden_youtube_quota_remaining`.
 *
 * Time comes from Effect's `Clock`, so tests drive midnight with `TestClock`.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Metric, Schema } from "effect"

/** The time zone Google's quota day follows. */
export const quotaTimeZone = "America/Los_Angeles"

const dayFormat = new Intl.DateTimeFormat("en-CA", {
  timeZone: quotaTimeZone,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23"
})

const pacificParts = (millis: number) => {
  const parts: Record<string, number> = {}
  for (const p of dayFormat.formatToParts(new Date(millis))) if (p.type !== "literal") parts[p.type] = Number(p.value)
  return parts as { year: number; month: number; day: number; hour: number; minute: number; second: number }
}

/** The Pacific calendar day of an instant, as `YYYY-MM-DD`. */
export const pacificDay = (millis: number): string => {
  const p = pacificParts(millis)
  return `${p.year}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`
}

/** The next midnight in Pacific time after `millis` (epoch millis), DST included. */
export const nextPacificMidnight = (millis: number): number => {
  const p = pacificParts(millis)
  // Pacific time is UTC-7 (PDT) or UTC-8 (PST): the next midnight is one of the two candidates.
  for (const hours of [7, 8]) {
    const candidate = Date.UTC(p.year, p.month - 1, p.day + 1, hours)
    const q = pacificParts(candidate)
    if (q.hour === 0 && q.minute === 0 && candidate > millis) return candidate
  }
  return Date.UTC(p.year, p.month - 1, p.day + 1, 8)
}

/** What the checkpoint keeps of the budget, so a restart the same day does not forget what was spent. */
export const Persisted = Schema.Struct({ day: Schema.String, used: Schema.Int })
/** @see {@link Persisted} */
export type Persisted = typeof Persisted.Type

/** The remaining daily quota of a source, labelled `source`. */
export const remainingGauge = Metric.gauge("warden_youtube_quota_remaining", {
  description: "YouTube Data API quota units left today (resets at midnight Pacific time)"
})

/** Settings of a budget. */
export interface Options {
  readonly dailyQuota: number
  readonly reserve: number
  /** The label of the gauge (the source's channel / videos). */
  readonly label: string
}

/** A budget's state and operations; one per source. */
export interface QuotaBudget {
  /** Counts `units` spent now (every call, failed or not: Google counts them too). */
  readonly spend: (units: number) => Effect.Effect<void>
  /** Units left today (after a reset if the Pacific day changed). */
  readonly remaining: Effect.Effect<number>
  /** Units left for polling: the remaining budget minus the action reserve. */
  readonly availableForPolling: Effect.Effect<number>
  /** The API said `quotaExceeded`: nothing is left until the reset. */
  readonly exhaust: Effect.Effect<void>
  /** Epoch millis of the next reset (midnight Pacific). */
  readonly resetAt: Effect.Effect<number>
  /**
   * The wait before the next poll: at least `minimum`, stretched so that polls costing `pollCost`
   * each last until the reset with the reserve kept; until the reset when nothing is available.
   */
  readonly nextDelay: (minimumMillis: number, pollCost: number) => Effect.Effect<number>
  /** The state to persist. */
  readonly snapshot: Effect.Effect<Persisted>
  /** Takes over what a checkpoint says was spent, when it is about today and more than counted. */
  readonly restore: (persisted: Persisted) => Effect.Effect<void>
}

/** Makes a budget, resuming what a checkpoint says was spent today. */
export const make = (options: Options, persisted: Persisted | undefined): QuotaBudget => {
  let day = persisted?.day ?? ""
  let used = persisted?.used ?? 0
  const gauge = Metric.withAttributes(remainingGauge, { source: options.label })
  const sync = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const today = pacificDay(now)
    if (today !== day) {
      day = today
      used = 0
    }
    return now
  })
  const left = () => Math.max(0, options.dailyQuota - used)
  const report = Effect.suspend(() => Metric.update(gauge, left()))
  const resetAt = Effect.map(sync, nextPacificMidnight)
  return {
    spend: (units) =>
      Effect.andThen(
        sync,
        Effect.suspend(() => {
          used += units
          return report
        })
      ),
    remaining: Effect.map(
      Effect.tap(sync, () => report),
      left
    ),
    availableForPolling: Effect.map(sync, () => Math.max(0, left() - options.reserve)),
    exhaust: Effect.andThen(
      sync,
      Effect.suspend(() => {
        used = Math.max(used, options.dailyQuota)
        return report
      })
    ),
    resetAt,
    nextDelay: (minimumMillis, pollCost) =>
      Effect.gen(function* () {
        const now = yield* sync
        const until = nextPacificMidnight(now) - now
        const available = Math.max(0, left() - options.reserve)
        if (available < pollCost) return until
        const polls = Math.floor(available / Math.max(1, pollCost))
        return Math.min(until, Math.max(minimumMillis, Math.ceil(until / polls)))
      }),
    snapshot: Effect.map(sync, () => ({ day, used })),
    restore: (persisted) =>
      Effect.andThen(
        sync,
        Effect.suspend(() => {
          if (persisted.day === day && persisted.used > used) used = persisted.used
          return report
        })
      )
  }
}
