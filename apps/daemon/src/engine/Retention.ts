/**
 * `sources[].retention`: a background sweep erases the content of item versions older than the
 * source's retention (state/Erasure.ts `sweep`), keeping what dedupe and statistics need, so an old
 * item delivered again is still recognised and not sent to the API again. Runs at start, then every
 * 1/24 of the shortest retention (at least a minute, at most an hour). Every runner of a cluster
 * sweeps: the sweep is idempotent (an erased version is never counted twice). What can still be
 * appealed is kept: an item acted on or sent to review, within the appeal window.
 */
import { ConfigDuration } from "@warden/connector"
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { Erasure } from "../state/Erasure.ts"

/** A source's retention, as the sweep needs it. */
export interface Retained {
  readonly id: string
  readonly retentionMillis: number | undefined
  /**
   * The appeal window (`authors.appealWindow`): an item acted on or sent to review keeps its content at
   * least this long, whatever the retention (an appeal needs its request).
   */
  readonly appealWindowMillis?: number | undefined
}

/** How often the sweep runs for these retentions (`undefined`: none is set, no sweep). */
export const intervalOf = (sources: ReadonlyArray<Retained>): Duration.Duration | undefined => {
  const shortest = Math.min(...sources.map((s) => s.retentionMillis ?? Number.POSITIVE_INFINITY))
  if (!Number.isFinite(shortest)) return undefined
  return Duration.millis(Math.min(3_600_000, Math.max(60_000, Math.floor(shortest / 24))))
}

/** One pass: each source with a retention, page by page until nothing older is left. */
export const sweepOnce = (sources: ReadonlyArray<Retained>) =>
  Effect.gen(function* () {
    const erasure = yield* Erasure
    const now = yield* Clock.currentTimeMillis
    let erased = 0
    for (const source of sources) {
      if (source.retentionMillis === undefined) continue
      const retention = ConfigDuration.format(Duration.millis(source.retentionMillis))
      for (;;) {
        const page = yield* erasure.sweep({
          source: source.id,
          before: now - source.retentionMillis,
          retention,
          appealableAfter: source.appealWindowMillis === undefined ? undefined : now - source.appealWindowMillis
        })
        erased += page.counts.items
        if (!page.more) break
      }
    }
    return erased
  }).pipe(Effect.withSpan("Retention.sweepOnce"))

/** The sweep, forked for the layer's lifetime; a failing pass is logged and the next one runs. */
export const layer = (sources: ReadonlyArray<Retained>) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const interval = intervalOf(sources)
      if (interval === undefined) return
      const pass = sweepOnce(sources).pipe(
        Effect.tap((n) =>
          n > 0 ? Effect.logInfo(`retention: erased the content of ${n} item versions`) : Effect.void
        ),
        Effect.catchCause((cause) => Effect.logWarning("retention sweep failed; next pass as scheduled", cause))
      )
      yield* pass.pipe(Effect.repeat(Schedule.spaced(interval)), Effect.forkScoped)
    })
  )
