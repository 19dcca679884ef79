/**
 * effect/cluster's own lines about its storage failing, folded into the state store's outage. The
 * cluster library keeps its messages in the state database and logs each failed read or write of it:
 * with PostgreSQL gone for 8 s that was ~60 lines ("Could not read messages from storage" every poll,
 * "Defect in entity, restarting" for every replay of a batch whose verdicts could not be recorded,
 * "Could not release shards, retrying", "Shard lock storage is unhealthy"), each with the whole cause
 * (issue 35). The daemon's own writes say it instead (StateHealth: one line when the store goes down,
 * one when it is back; the library's storage is the same database, and it often notices first), so
 * the library's lines about its storage are dropped: a line with the library's `module` annotation, or
 * whose cause holds the library's storage error (`PersistenceError`: its shard lock loop logs without
 * annotations), when its cause is the store's problem (StateProblem), and while the store's outage is
 * reported any line holding a `PersistenceError` (a lock refresh that timed out while the database
 * was away). Every other line passes as it is, and with `WARDEN_DEBUG` set nothing is dropped.
 */
import { Config, Effect, Layer, Logger, References } from "effect"
import { errorsIn } from "./state/ErrorChain.ts"
import { StateHealth } from "./state/StateHealth.ts"

/** The `module` annotations effect/cluster puts on its lines. */
const fromCluster = (module: unknown): boolean =>
  typeof module === "string" && (module.startsWith("effect/cluster") || module === "EntityManager")

/** effect/cluster's storage error (`ClusterError.PersistenceError`), by its tag. */
const holdsPersistenceError = (cause: unknown): boolean => errorsIn(cause).some((e) => e._tag === "PersistenceError")

/**
 * The loggers in force, behind the filter; provided to the cluster's layer, whose fibers (the storage
 * read loop, the entity managers, the shard locks) log through them.
 */
export const layer = Layer.effect(
  Logger.CurrentLoggers,
  Effect.gen(function* () {
    const loggers = yield* Logger.CurrentLoggers
    const debug = (yield* Config.String("WARDEN_DEBUG").pipe(Config.withDefault(""))) !== ""
    if (debug) return loggers
    const health = yield* StateHealth
    const filtered = Logger.make<unknown, void>((options) => {
      if (options.cause.reasons.length > 0) {
        const persistence = holdsPersistenceError(options.cause)
        if (persistence && health.inOutage()) return
        const cluster = persistence || fromCluster(options.fiber.getRef(References.CurrentLogAnnotations).module)
        if (cluster && health.isProblem(options.cause)) return
      }
      for (const logger of loggers) logger.log(options)
    })
    return new Set([filtered])
  })
)
