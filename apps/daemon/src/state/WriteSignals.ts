/**
 * Wake-ups for the pollers of the daemon's two queues, the sinks' outbox and the platform actions. The
 * writer rings a queue's doorbell once its transaction has committed (ItemStore.recordItems, a
 * moderator's action, a replay of dead letters), and a poller waiting for its next look wakes at once.
 *
 * Before, each poller looked on a timer whether or not anything had been written: the sinks every
 * 100 ms, the actions every 250 ms. In a 2-minute soak of a near-idle daemon (one item a second) those
 * two queries were 60% of its SQL time (`bench/support/sql-counter.ts`), and a verdict waited up to
 * 100 ms for its sink. Writes of another process ring nothing here (a second runner on PostgreSQL), so
 * the pollers still look on their own ({@link Queues.unannouncedLookMillis}): every second on
 * PostgreSQL, every 10 s on SQLite, where one process owns the file (StateOwner) and every write to
 * these queues rings (that look only covers a ring missed by a bug). The two 1 s looks were ~0.6 ms of
 * an idle daemon's ~4.7 ms of CPU per second (docs/BENCHMARKS.md, "An idle daemon, quieter").
 */
import { Clock, Context, Deferred, Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { LatestRecord } from "./LatestRecord.ts"
import * as RecordedSignal from "./RecordedSignal.ts"

/** A poller's side of a doorbell. */
export interface Listener {
  /**
   * Waits until the doorbell rings or `millis` pass; at once when it rang since this listener's last
   * wait ended (a ring while the poller was busy is never lost).
   */
  readonly wait: (millis: number) => Effect.Effect<void>
}

/** A doorbell: one writer side, any number of listeners. */
export interface Doorbell {
  /** Wakes every listener (synchronous; call it after the write committed). */
  readonly ring: () => void
  /** A new listener, which has heard every ring before it was made. */
  readonly listen: () => Listener
}

/** A new doorbell. */
export const make = (): Doorbell => {
  let rings = 0
  let next = Deferred.makeUnsafe<void>()
  return {
    ring: () => {
      rings++
      const rung = next
      next = Deferred.makeUnsafe<void>()
      Deferred.doneUnsafe(rung, Exit.void)
    },
    listen: () => {
      let heard = rings
      return {
        wait: (millis) =>
          Effect.suspend(() => {
            if (rings !== heard) {
              heard = rings
              return Effect.void
            }
            return Effect.raceFirst(Deferred.await(next), Effect.sleep(millis)).pipe(
              Effect.ensuring(
                Effect.sync(() => {
                  heard = rings
                })
              )
            )
          })
      }
    }
  }
}

/** The doorbells of the outbox and of the actions, one per process, and how often their pollers look unasked. */
export interface Queues {
  readonly outbox: Doorbell
  readonly actions: Doorbell
  /** The items recorded, announced to the checks waiting on their decision (RecordedSignal). */
  readonly recorded: RecordedSignal.RecordedSignal<LatestRecord>
  /** The intake of the push sources (their streams wait on it). */
  readonly intake: Doorbell
  /** The longest a poller waits without a ring: for writes no doorbell of this process announces. */
  readonly unannouncedLookMillis: number
}

/** See {@link Queues.unannouncedLookMillis}: other runners write on PostgreSQL, nobody else on SQLite. */
export const unannouncedLook = { shared: 1_000, singleProcess: 10_000 } as const

/** The doorbells of the outbox and of the actions, one per process. */
export class WriteSignals extends Context.Service<WriteSignals, Queues>()("@warden/daemon/WriteSignals") {
  /** On the `SqlClient` in context: its dialect says whether other processes write the queues. */
  static readonly layer = Layer.effect(
    WriteSignals,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return {
        outbox: make(),
        actions: make(),
        recorded: RecordedSignal.make<LatestRecord>(),
        intake: make(),
        unannouncedLookMillis: sql.onDialectOrElse({
          sqlite: () => unannouncedLook.singleProcess,
          orElse: () => unannouncedLook.shared
        })
      }
    })
  )
}

/** A queue poller's pace: when to look at its queue again. */
export interface Pace {
  /** A row this poller failed is due again at `at` (epoch milliseconds of the `Clock`, as the rows hold it). */
  readonly dueAt: (at: number) => void
  /** Waits for a write (`doorbell`), the soonest retry this poller scheduled, or `idleMillis`, whichever comes first. */
  readonly nextLook: Effect.Effect<void>
}

/** The pace of a poller of the queue behind `doorbell`. */
export const pace = (doorbell: Doorbell, idleMillis: number): Pace => {
  const written = doorbell.listen()
  let due: Array<number> = []
  return {
    dueAt: (at) => {
      due.push(at)
    },
    nextLook: Effect.flatMap(Clock.currentTimeMillis, (now) => {
      due = due.filter((at) => at > now)
      const soonest = due.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...due)
      return written.wait(Math.min(idleMillis, soonest - now))
    })
  }
}

/**
 * The pace of this process's poller of `queue`, looking unasked as often as the backend needs
 * ({@link Queues.unannouncedLookMillis}), and due first at `soonest`: the soonest retry the queue already
 * holds (rows an earlier process failed), so that it is looked at when due rather than at the next
 * unasked look.
 */
export const pacer = <E, R>(queue: "outbox" | "actions", soonest: Effect.Effect<Option.Option<number>, E, R>) =>
  Effect.gen(function* () {
    const signals = yield* WriteSignals
    const looks = pace(signals[queue], signals.unannouncedLookMillis)
    const at = yield* soonest.pipe(
      Effect.catchCause((cause) =>
        Effect.as(
          Effect.logWarning("the queue's next retry not read; the unasked look covers it", cause),
          Option.none<number>()
        )
      )
    )
    if (Option.isSome(at)) looks.dueAt(at.value)
    return looks
  })
