/**
 * Sends a source's batch to the `ItemBatch` entities (ItemBatch.ts), one message per partition, and
 * keeps when each send still waiting for its replies started: the purge after a commit
 * (CheckpointCommit.ts) must not delete what such a send has not been answered for.
 */
import { createHash } from "node:crypto"
import { Clock, Effect } from "effect"
import * as BatchEvent from "./BatchEvent.ts"
import type { Handling } from "./Handling.ts"

/** One partition's message (ItemBatch's `Process` payload). */
export interface BatchMessage {
  readonly source: string
  readonly events: string
  readonly degraded?: "allow" | "reject"
  readonly reanalysis?: boolean
}

/** A source's sending side. */
export interface BatchSender<E> {
  /** Sends `events`, each to its reference's partition; succeeds once every partition acknowledged. */
  readonly send: (events: ReadonlyArray<BatchEvent.BatchEvent>, how: Handling) => Effect.Effect<void, E>
  /** The start of the oldest send still waiting for its replies; now when none is. */
  readonly oldestInFlight: Effect.Effect<number>
}

/** The partition of `reference` among `partitions`: a hash, so one reference always goes to one entity. */
export const partitionOf = (reference: string, partitions: number): number =>
  partitions <= 1 ? 0 : createHash("sha1").update(reference).digest().readUInt32BE(0) % partitions

/** `events` grouped by partition, in their order within each. */
const byPartition = (events: ReadonlyArray<BatchEvent.BatchEvent>, partitions: number) => {
  const groups = new Map<number, Array<BatchEvent.BatchEvent>>()
  for (const event of events) {
    const p = partitionOf(event.reference, partitions)
    const list = groups.get(p)
    if (list === undefined) groups.set(p, [event])
    else list.push(event)
  }
  return groups
}

/** The sender of source `id` over `partitions` entities (`<id>/<partition>`), each message via `deliver`. */
export const make = <E>(
  id: string,
  partitions: number,
  deliver: (entityId: string, message: BatchMessage) => Effect.Effect<unknown, E>
): BatchSender<E> => {
  /** Start times of the sends still waiting for their replies. */
  const sending = new Map<symbol, number>()
  const sendNow = (events: ReadonlyArray<BatchEvent.BatchEvent>, how: Handling) =>
    Effect.forEach(
      byPartition(events, partitions),
      ([p, batch]) =>
        deliver(`${id}/${p}`, {
          source: id,
          events: BatchEvent.toText(batch),
          ...(how.degraded === undefined ? {} : { degraded: how.degraded }),
          ...(how.reanalysis === true ? { reanalysis: true } : {})
        }),
      { concurrency: "unbounded", discard: true }
    )
  return {
    send: (events, how) =>
      Effect.acquireUseRelease(
        Effect.map(Clock.currentTimeMillis, (now) => {
          const token = Symbol()
          sending.set(token, now)
          return token
        }),
        () => sendNow(events, how),
        (token) => Effect.sync(() => sending.delete(token))
      ),
    oldestInFlight: Effect.map(Clock.currentTimeMillis, (now) => {
      let oldest = now
      for (const at of sending.values()) oldest = Math.min(oldest, at)
      return oldest
    })
  }
}
