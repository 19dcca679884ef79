/**
 * An API call at a shutdown. A batch interrupted mid-round (SIGTERM, a shard moving to another
 * runner) used to interrupt its calls too, and the answers of those on the wire were thrown away
 * although the API had counted and billed them: those items were analysed, and billed, again at the
 * next start (issue 19: 17 such answers over two stops under load).
 *
 * Now an interrupted call is told to stop instead (the transport's `CallOptions.stop`): it starts
 * nothing new (a wait for the limiter or a retry's delay ends at once), and a request on the wire is
 * waited for, up to {@link graceMillis}, so that its answer is recorded with the round's others.
 */
import { Transport } from "@warden/transport"
import { Deferred, Effect, Fiber } from "effect"

/**
 * How long a stopping call's request on the wire may take to answer before it is abandoned: within
 * the sinks' last drain (SinkWorker.FINAL_DRAIN_MILLIS, 3 s), which waits for the batches first.
 */
export const graceMillis = 2_000

/** Runs `call` so that interrupting it stops it gracefully (see the module comment). */
export const finishOnStop = <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const stop = Deferred.makeUnsafe<void>()
      const options = yield* Transport.CallOptions
      // Detached: the interruption reaches the caller, not the call, which is only asked to stop.
      const fiber = yield* Effect.forkDetach(
        Effect.interruptible(Effect.provideService(call, Transport.CallOptions, { ...options, stop }))
      )
      return yield* restore(Fiber.join(fiber)).pipe(
        Effect.onInterrupt(() =>
          Deferred.succeed(stop, undefined).pipe(
            Effect.andThen(Effect.timeoutOption(Fiber.await(fiber), graceMillis)),
            Effect.andThen(Fiber.interrupt(fiber))
          )
        )
      )
    })
  )
