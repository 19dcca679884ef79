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
 *
 * The source uses one too, for the batches it has in flight (`PipelineOptions.inflight`): a batch the
 * API did not take is handed back and sent again later, and a later batch holding one of its
 * references must not be sent meanwhile. It would be recorded first, and the resend's older text then
 * recorded as the newer version: the item moderated on text it no longer holds. The source claims each
 * batch's references in stream order ({@link ReferenceOrder.claim}) and sends it once every earlier
 * batch holding one of them has been acknowledged.
 */
import { Deferred, Effect, Exit } from "effect"

/** A batch's place in the order, taken when it is claimed: its work runs after every earlier claim's. */
export interface Claim {
  /** Runs `work` once every earlier batch holding one of the claimed keys has finished (however it ended). */
  readonly run: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Runs batches in the order of their references (see the module's documentation). */
export interface ReferenceOrder {
  /**
   * Takes the next place in the order for `keys`, synchronously: where the caller claims in a stream
   * stage, the order is the stream's, whatever order the concurrent workers start in. A claim whose
   * work never runs holds its keys until the order itself is dropped.
   */
  readonly claim: (keys: Iterable<string>) => Claim
  /** Claims `keys` when the effect starts and runs `work` in order. */
  readonly inOrder: <A, E, R>(keys: Iterable<string>, work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** A new, empty order (one per processor: the keys carry the source). */
export const make = (): ReferenceOrder => {
  /** The last batch to claim each key, until it finishes. */
  const last = new Map<string, Deferred.Deferred<void>>()
  const claim = (keys: Iterable<string>): Claim => {
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
    return {
      run: (work) =>
        Effect.ensuring(
          before.size === 0 ? work : Effect.andThen(Effect.forEach(before, Deferred.await, { discard: true }), work),
          release
        )
    }
  }
  const inOrder = <A, E, R>(keys: Iterable<string>, work: Effect.Effect<A, E, R>) =>
    Effect.suspend(() => claim(keys).run(work))
  return { claim, inOrder }
}
