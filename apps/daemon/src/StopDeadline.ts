/**
 * However a stop goes, `warden run` exits within {@link MILLIS} of SIGTERM/SIGINT. A stop drains on its
 * own in ~1-3 s (the batches' calls on the wire up to 2 s, the sinks' outbox up to 3 s, the admin
 * server's requests up to 2 s, each bounded), but a part the daemon does not own can wait longer: with
 * its PostgreSQL gone, effect/cluster waits its shard lock interval (~10 s) to hand the shards back,
 * and the stop took 10.2 s where the docs promise well within 10 s (issue 35). Past the deadline the
 * process logs one line and exits 1: what was not finished is done at the next start (the outbox is
 * the record of undelivered verdicts, the shard locks expire).
 */
import { Effect, Option } from "effect"
import { StateHealth } from "./state/StateHealth.ts"

/** The longest a stop takes: within the 10 s orchestrators give by default (docker stop, systemd's 30 s). */
export const MILLIS = 8_000

/**
 * Runs `daemon` (which runs until interrupted); once it is interrupted, a timer (not keeping the process
 * alive) ends the process after {@link MILLIS}, whatever is still stopping.
 */
export const guard = <A, E, R>(daemon: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.onInterrupt(daemon, () =>
    Effect.gen(function* () {
      const context = yield* Effect.context<never>()
      const health = yield* Effect.serviceOption(StateHealth)
      const timer = setTimeout(() => {
        const problem = Option.isSome(health) ? health.value.problem() : undefined
        Effect.runSyncWith(context)(
          Effect.logError(
            `stopping did not finish within ${MILLIS / 1000} s${problem === undefined ? "" : ` (${problem.text})`}; exiting now: what was not delivered or handed over is done at the next start`
          )
        )
        process.exit(1)
      }, MILLIS)
      timer.unref()
    })
  )
