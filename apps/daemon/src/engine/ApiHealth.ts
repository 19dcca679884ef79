/**
 * Whether the content-analysis API answers a source, and the source's failure mode that follows from it
 * (`failure` in its settings): `hold` waits for the API however long it is gone; `allow` and `reject`
 * record the items unanalysed once it has been gone past `afterMillis`, and the re-analysis sweep gives
 * them a verdict later. The state is one `Ref` per source, read on the fiber's `Clock`.
 */
import { Clock, Effect, Ref } from "effect"
import type { FailurePolicy } from "../domain/SourceSettings.ts"

/** While degraded, how often a batch tries the API for real (counted from the end of the last try). */
export const PROBE_EVERY_MILLIS = 10_000

/** At most one line per this interval for a source the API pauses (a batch retried every pause retry). */
export const PAUSE_LOG_EVERY_MILLIS = 60_000

/** The failure mode of a source without one: hold, for ever. */
const holding: Pick<FailurePolicy, "mode" | "afterMillis"> = { mode: "hold", afterMillis: Number.POSITIVE_INFINITY }

interface State {
  /** Since when the API has been unavailable to this source (undefined: it answers). */
  readonly unavailableSince: number | undefined
  /**
   * When a batch last tried the API for real: set as a degraded source's try starts (so that the
   * batches in flight do not all try at once), and again as any real try ends (the 10 s count from
   * there). Undefined: never.
   */
  readonly lastProbe: number | undefined
  /** When the source last logged that the API paused it. Undefined: never. */
  readonly lastPauseLog: number | undefined
}

/** The API's health as one source sees it. */
export interface ApiHealth {
  /**
   * The failure mode in force for a batch's next attempt: degraded only past the configured delay.
   * While degraded, the API is tried for real at most every 10 s, counted from the end of the last
   * try, and never twice in a row by one batch (`justTried`): the other batches, and this one after
   * its failed try, go through degraded. Counted from the try's start, a try slower than 10 s (a
   * timeout), or a lone batch whose hand-back backoff had grown past 10 s, made every attempt a try,
   * and the failure mode never applied.
   */
  readonly degradedNow: (justTried: boolean) => Effect.Effect<"allow" | "reject" | undefined>
  /** A real try of the API just ended (whatever its outcome). */
  readonly tried: Effect.Effect<void>
  /** The API answered: `true` when it had been unavailable until now. */
  readonly answered: Effect.Effect<boolean>
  /** The API is unavailable (its outage counted from the first time). */
  readonly unavailable: Effect.Effect<void>
  /** Whether a line saying the API paused the source is due (and counts it as logged). */
  readonly pauseLogDue: Effect.Effect<boolean>
}

/** The API's health for a source of failure mode `failure` (none: hold). */
export const make = Effect.fn("ApiHealth.make")(function* (
  failure: Pick<FailurePolicy, "mode" | "afterMillis"> | undefined
) {
  const mode = failure ?? holding
  const state = yield* Ref.make<State>({ unavailableSince: undefined, lastProbe: undefined, lastPauseLog: undefined })
  /** Reads the clock, then `f` of the time and the state in one step. */
  const modifyAt = <A>(f: (now: number, s: State) => readonly [A, State]) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.modify(state, (s) => f(now, s)))
  const due = (at: number | undefined, now: number, every: number) => at === undefined || now - at >= every
  return {
    degradedNow: (justTried) =>
      modifyAt((now, s) => {
        if (mode.mode === "hold" || s.unavailableSince === undefined) return [undefined, s]
        if (now - s.unavailableSince < mode.afterMillis) return [undefined, s]
        if (!justTried && due(s.lastProbe, now, PROBE_EVERY_MILLIS)) return [undefined, { ...s, lastProbe: now }]
        return [mode.mode, s]
      }),
    tried: modifyAt((now, s) => [undefined, { ...s, lastProbe: now }]),
    answered: Ref.modify(state, (s) => [s.unavailableSince !== undefined, { ...s, unavailableSince: undefined }]),
    unavailable: modifyAt((now, s) => [undefined, { ...s, unavailableSince: s.unavailableSince ?? now }]),
    pauseLogDue: modifyAt((now, s) =>
      due(s.lastPauseLog, now, PAUSE_LOG_EVERY_MILLIS) ? [true, { ...s, lastPauseLog: now }] : [false, s]
    )
  } satisfies ApiHealth
})
