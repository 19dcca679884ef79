/**
 * Wake-ups for the checks waiting on an item's decision (a push source's `POST /v1/check`): the record
 * transaction announces, once committed, the items it recorded (`source\u001freference`) with what it
 * wrote of each, and only the checks waiting on one of those wake up, with that record in hand: no
 * query to read back what was just written. A doorbell ringing every waiting check at every batch
 * (WriteSignals) would cost each waiting check a query per batch of any source.
 *
 * A record of another process (a second runner on PostgreSQL) announces nothing here: a waiting check
 * also looks on its own, every `lookEveryMillis`.
 */
import { Clock, Deferred, Effect, Exit, Option } from "effect"

/** The key of an item: its source and reference. */
export const keyOf = (source: string, reference: string): string => `${source}\u001f${reference}`

/** How {@link RecordedSignal.until} waits for an item's record `R`, found as `A`. */
export interface Wait<R, A, E, Rq, E2, R2> {
  /** Reads the state: the answer, or none yet. */
  readonly look: Effect.Effect<Option.Option<A>, E, Rq>
  /** The answer in an announced record, or none (not the one waited for: an edit's): then it looks. */
  readonly accept: (record: R) => Option.Option<A>
  /** When to give up, in `Clock` milliseconds. */
  readonly untilMillis: number
  /** How often to look unannounced (another runner's record announces nothing here). */
  readonly lookEveryMillis: number
  /**
   * Runs once, after the first look found nothing and before any wait (a check hands its item in
   * there: what announces it cannot come before, and the first look needs no second one).
   */
  readonly onFirstMiss?: Effect.Effect<void, E2, R2> | undefined
}

/** See the module documentation. */
export interface RecordedSignal<R> {
  /**
   * Wakes the checks waiting on these items, each with its record (synchronous; call it after the
   * commit). A record is made only when some check waits on its item.
   */
  readonly announce: (records: Iterable<readonly [key: string, record: () => R]>) => void
  /**
   * Looks, then waits until an announced record of `key` is accepted, a look finds something, or
   * `untilMillis` passes: it looks again every `lookEveryMillis`. An announcement between a look and
   * the wait after it is not lost (the waiter is registered before each look).
   */
  readonly until: <A, E, Rq, E2 = never, R2 = never>(
    key: string,
    wait: Wait<R, A, E, Rq, E2, R2>
  ) => Effect.Effect<Option.Option<A>, E | E2, Rq | R2>
}

/** A new signal, one per process. */
export const make = <R>(): RecordedSignal<R> => {
  const waiting = new Map<string, Set<Deferred.Deferred<R>>>()
  const register = (key: string) => {
    const deferred = Deferred.makeUnsafe<R>()
    const set = waiting.get(key)
    if (set === undefined) waiting.set(key, new Set([deferred]))
    else set.add(deferred)
    return deferred
  }
  const unregister = (key: string, deferred: Deferred.Deferred<R>) => {
    const set = waiting.get(key)
    if (set === undefined) return
    set.delete(deferred)
    if (set.size === 0) waiting.delete(key)
  }
  return {
    announce: (records) => {
      if (waiting.size === 0) return
      for (const [key, record] of records) {
        const set = waiting.get(key)
        if (set === undefined) continue
        waiting.delete(key)
        const done = Exit.succeed(record())
        for (const deferred of set) Deferred.doneUnsafe(deferred, done)
      }
    },
    until: (key, { look, accept, untilMillis, lookEveryMillis, onFirstMiss }) =>
      Effect.gen(function* () {
        let missed = false
        while (true) {
          const deferred = register(key)
          const next = yield* Effect.gen(function* () {
            const found = yield* look
            if (Option.isSome(found)) return found
            if (!missed) {
              missed = true
              if (onFirstMiss !== undefined) yield* onFirstMiss
            }
            const left = untilMillis - (yield* Clock.currentTimeMillis)
            if (left <= 0) return found
            const announced = yield* Effect.raceFirst(
              Effect.map(Deferred.await(deferred), Option.some),
              Effect.as(Effect.sleep(Math.min(left, lookEveryMillis)), Option.none<R>())
            )
            // An accepted record is the answer; else (a timer, another content's record) look again.
            if (Option.isNone(announced)) return undefined
            const accepted = accept(announced.value)
            return Option.isSome(accepted) ? accepted : undefined
          }).pipe(Effect.ensuring(Effect.sync(() => unregister(key, deferred))))
          if (next !== undefined) return next
        }
      })
  }
}
