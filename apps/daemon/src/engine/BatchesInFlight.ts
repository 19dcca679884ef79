/**
 * The batches this process is working on, so that a shutdown can wait for them: an interrupted batch
 * records what it analysed as it stops (its calls on the wire finish first, FinishOnStop), and the
 * sinks' last drain must come after that, or those verdicts wait in the outbox for the next start.
 */
import { Context, Effect, Latch } from "effect"

/** The batches in progress, as a latch open while there are none. */
export interface Shape {
  /** Runs `batch`, counted from its start to its end, finalizers (the interrupted round's record) included. */
  readonly counted: <A, E, R>(batch: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Waits until no batch is in progress. */
  readonly settled: Effect.Effect<void>
}

/** A tracker; {@link BatchesInFlight}'s default counts nothing and is always settled. */
export const make = (): Shape => {
  const idle = Latch.makeUnsafe(true)
  let running = 0
  return {
    counted: (batch) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          if (running++ === 0) idle.closeUnsafe()
        }),
        () => batch,
        () =>
          Effect.sync(() => {
            if (--running === 0) idle.openUnsafe()
          })
      ),
    settled: idle.await
  }
}

/** The daemon's tracker (Daemon.layer provides one; without it, nothing is counted). */
export const BatchesInFlight = Context.Reference<Shape>("@warden/daemon/BatchesInFlight", {
  defaultValue: () => ({ counted: (batch) => batch, settled: Effect.void })
})
