/**
 * The order of one reference's events across batches worked on at once.
 *
 * The entity takes several batch messages of a source at once (`PipelineOptions.batchesAtOnce`), so that
 * one batch's calls are on the wire while another records. Two of them may hold the same reference (an
 * item edited between two polls): the later one's dedupe must read the earlier one's record, or it would
 * number its version as the earlier one did and the insert would drop it (ON CONFLICT DO NOTHING): the
 * edited content would never be analysed. So a batch waits for every earlier batch still at work that
 * holds one of its references; batches without a reference in common run side by side.
 *
 * "Earlier" is the order in which batches call {@link ReferenceOrder.inOrder}: the entity starts its
 * messages' handlers in mailbox order, and a handler calls it before its first suspension.
 */
import { Deferred, Effect, Exit } from "effect"

/** Runs batches in the order of their references (see the module's documentation). */
export interface ReferenceOrder {
  /** Runs `work` once every earlier batch holding one of `keys` has finished (however it ended). */
  readonly inOrder: <A, E, R>(keys: Iterable<string>, work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** A new, empty order (one per processor: the keys carry the source). */
export const make = (): ReferenceOrder => {
  /** The last batch to claim each key, until it finishes. */
  const last = new Map<string, Deferred.Deferred<void>>()
  const inOrder = <A, E, R>(keys: Iterable<string>, work: Effect.Effect<A, E, R>) =>
    Effect.suspend(() => {
      const done = Deferred.makeUnsafe<void>()
      const claimed = new Set(keys)
      const before = new Set<Deferred.Deferred<void>>()
      for (const key of claimed) {
        const previous = last.get(key)
        if (previous !== undefined) before.add(previous)
        last.set(key, done)
      }
      const release = Effect.sync(() => {
        for (const key of claimed) if (last.get(key) === done) last.delete(key)
        Deferred.doneUnsafe(done, Exit.void)
      })
      const wait =
        before.size === 0 ? work : Effect.andThen(Effect.forEach(before, Deferred.await, { discard: true }), work)
      return Effect.ensuring(wait, release)
    })
  return { inOrder }
}
