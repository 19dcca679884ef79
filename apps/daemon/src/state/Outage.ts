/**
 * A part of the daemon that can be down for a while (the state store when its disk is full or its
 * PostgreSQL is gone, a sink whose file cannot be written), as one log line when it goes down and one
 * when it is back, however many attempts fail in between (issue 35: a lost PostgreSQL was ~40 lines an
 * outage, each with a stack trace; a full jsonl disk ~310 warnings a second).
 *
 * The part is down while any of its operations is failing: each caller names what it tried (a source's
 * batches, a sink's acknowledgements) and reports how that went. An operation clears only itself, so a
 * small write that still fits on a full disk (a heartbeat, an outbox row deleted) does not end an outage
 * a larger one (a batch of verdicts) is still in. Every operation reported failing is one its owner
 * retries until it works (Pipeline's batches and commits, the sink worker's acknowledgements), so the
 * outage ends once the part takes them again.
 *
 * The part is up again as soon as nothing fails (readiness and the waiting work follow at once), but the
 * end line waits {@link Wording.settleMillis} without a new failure: on a nearly full disk one small
 * batch fits (in the space a failed one gave back) and the next fails, which would otherwise be an end
 * line and a new start line each time.
 */
import { Clock, Effect, Latch } from "effect"

/** What went wrong, as the line names it: `state.sqlite: database or disk is full (SQLITE_FULL)`. */
export interface Problem {
  /** One line: the setting, what went wrong, the code. */
  readonly text: string
  /** The setting at fault (`state.sqlite`, `sinks.0.path`), as a log annotation. */
  readonly setting?: string | undefined
  /** The error code (`ENOSPC`, `SQLITE_FULL`, `57P01`), as a log annotation. */
  readonly code?: string | undefined
}

/** How a part's two lines read. */
export interface Wording {
  /** The line at the start: what is down and what the daemon does meanwhile. */
  readonly down: (problem: Problem) => string
  /** The line at the end, with how long it lasted and how many attempts failed. */
  readonly up: (problem: Problem, seconds: number, failures: number) => string
  /** Annotations of both lines (`{ sink: "jsonl" }`). */
  readonly annotations?: Readonly<Record<string, unknown>> | undefined
  /** How long the part must work without a failure before the end line (default {@link SETTLE_MILLIS}). */
  readonly settleMillis?: number | undefined
}

/** Default of {@link Wording.settleMillis}. */
export const SETTLE_MILLIS = 10_000

/** A part's outage: reported by its users, read by readiness and by the work that must wait for it. */
export interface Outage {
  /** `operation` failed with `problem`: the first failure starts the outage (one line). */
  readonly failed: (operation: string, problem: Problem) => Effect.Effect<void>
  /**
   * `operation` worked: once no operation fails, the part is up, and the outage ends (one line) when
   * none has failed for the settle time. Free when up.
   */
  readonly recovered: (operation: string) => Effect.Effect<void>
  /** The problem of the current outage while the part is down; `undefined` when it is up. */
  readonly problem: () => Problem | undefined
  /** Whether `operation` is among the failing ones. */
  readonly failing: (operation: string) => boolean
  /** Whether an outage's start line is out and its end line not yet (down, or up and settling). */
  readonly reported: () => boolean
  /** Waits until the part is up (at once when it is). */
  readonly up: Effect.Effect<void>
}

const annotationsOf = (problem: Problem, wording: Wording) => ({
  ...wording.annotations,
  ...(problem.setting === undefined ? {} : { setting: problem.setting }),
  ...(problem.code === undefined ? {} : { code: problem.code })
})

/** A part that is up. */
export const make = (wording: Wording): Outage => {
  const settleMillis = wording.settleMillis ?? SETTLE_MILLIS
  const failing = new Map<string, Problem>()
  const upLatch = Latch.makeUnsafe(true)
  /** The outage whose start line is out and whose end line is not. */
  let started: { readonly problem: Problem; readonly at: number } | undefined
  /** When the part last came up, for the end line's duration. */
  let upAt = 0
  let failures = 0
  /** Bumped by every change: a pending end line logs only if nothing happened since it was planned. */
  let epoch = 0
  const end = Effect.suspend(() => {
    if (started === undefined || failing.size > 0) return Effect.void
    const { problem, at } = started
    started = undefined
    return Effect.logInfo(wording.up(problem, Math.round((upAt - at) / 100) / 10, failures)).pipe(
      Effect.annotateLogs(annotationsOf(problem, wording))
    )
  })
  // Each report reads the clock first, then changes the state in one synchronous step: two fibers'
  // reports never interleave half-way.
  return {
    failed: (operation, problem) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        failures++
        epoch++
        failing.set(operation, problem)
        upLatch.closeUnsafe()
        if (started !== undefined) return Effect.void
        started = { problem, at: now }
        failures = 1
        return Effect.logError(wording.down(problem)).pipe(Effect.annotateLogs(annotationsOf(problem, wording)))
      }),
    recovered: (operation) =>
      Effect.suspend(() =>
        started === undefined || !failing.has(operation)
          ? Effect.void
          : Effect.flatMap(Clock.currentTimeMillis, (now) => {
              if (!failing.delete(operation) || failing.size > 0) return Effect.void
              upAt = now
              upLatch.openUnsafe()
              const planned = ++epoch
              if (settleMillis <= 0) return end
              return Effect.asVoid(
                Effect.forkDetach(
                  Effect.sleep(settleMillis).pipe(
                    Effect.andThen(Effect.suspend(() => (epoch === planned ? end : Effect.void)))
                  )
                )
              )
            })
      ),
    problem: () => (failing.size === 0 ? undefined : started?.problem),
    failing: (operation) => failing.has(operation),
    reported: () => started !== undefined,
    up: upLatch.await
  }
}
