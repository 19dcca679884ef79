/**
 * Wake-ups for the checks waiting on an item's decision (a push source's `POST /v1/check`): the record
 * transaction announces, once committed, the items it recorded (`source\u001freference`), and only the
 * checks waiting on one of those look at the state again. A doorbell ringing every waiting check at
 * every batch (WriteSignals) would cost each waiting check a query per batch of any source.
 *
 * A record of another process (a second runner on PostgreSQL) announces nothing here: a waiting check
 * also looks on its own, every `lookEveryMillis`.
 */
import { Clock, Deferred, Effect, Exit, Option } from "effect"

/** The key of an item: its source and reference. */
export const keyOf = (source: string, reference: string): string => `${source}\u001f${reference}`

/** See the module documentation. */
export interface RecordedSignal {
  /** Wakes the checks waiting on these items (synchronous; call it after the commit). */
  readonly announce: (keys: Iterable<string>) => void
  /**
   * Runs `look` until it finds something or `untilMillis` (`Clock` milliseconds) passes: again at
   * once when the item is announced, else every `lookEveryMillis`. An announcement between a look and
   * the wait after it is not lost (the waiter is registered before each look). `onFirstMiss` runs once,
   * after the first look found nothing and before any wait (a check hands its item in there: what
   * announces it cannot come before, and the first look needs no second one).
   */
  readonly until: <A, E, R, E2 = never, R2 = never>(
    key: string,
    look: Effect.Effect<Option.Option<A>, E, R>,
    untilMillis: number,
    lookEveryMillis: number,
    onFirstMiss?: Effect.Effect<void, E2, R2>
  ) => Effect.Effect<Option.Option<A>, E | E2, R | R2>
}

/** A new signal, one per process. */
export const make = (): RecordedSignal => {
  const waiting = new Map<string, Set<Deferred.Deferred<void>>>()
  const register = (key: string) => {
    const deferred = Deferred.makeUnsafe<void>()
    const set = waiting.get(key)
    if (set === undefined) waiting.set(key, new Set([deferred]))
    else set.add(deferred)
    return deferred
  }
  const unregister = (key: string, deferred: Deferred.Deferred<void>) => {
    const set = waiting.get(key)
    if (set === undefined) return
    set.delete(deferred)
    if (set.size === 0) waiting.delete(key)
  }
  return {
    announce: (keys) => {
      if (waiting.size === 0) return
      for (const key of keys) {
        const set = waiting.get(key)
        if (set === undefined) continue
        waiting.delete(key)
        for (const deferred of set) Deferred.doneUnsafe(deferred, Exit.void)
      }
    },
    until: (key, look, untilMillis, lookEveryMillis, onFirstMiss) =>
      Effect.gen(function* () {
        let missed = false
        while (true) {
          const deferred = register(key)
          const next = yield* Effect.gen(function* () {
            const found = yield* look
            if (Option.isSome(found)) return { done: true as const, found }
            if (!missed) {
              missed = true
              if (onFirstMiss !== undefined) yield* onFirstMiss
            }
            const left = untilMillis - (yield* Clock.currentTimeMillis)
            if (left <= 0) return { done: true as const, found }
            yield* Effect.raceFirst(Deferred.await(deferred), Effect.sleep(Math.min(left, lookEveryMillis)))
            return { done: false as const, found }
          }).pipe(Effect.ensuring(Effect.sync(() => unregister(key, deferred))))
          if (next.done) return next.found
        }
      })
  }
}
