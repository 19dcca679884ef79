/**
 * How fast the runners of a PostgreSQL cluster notice that one of them died.
 *
 * effect/cluster checks runner health in one singleton ("effect/cluster/Sharding/RunnerHealth"): when
 * the killed runner was the one running it, nobody pings the dead one, and the survivors only drop it
 * once its heartbeat in `cluster_runners` is older than `shardLockExpiration` (12 s here); measured 9
 * s to take over at load 30, against a target of 5 s. So every runner also watches the others (the
 * same ping and the same `cluster_runners.healthy` flag effect's singleton writes), and the ping gives
 * up sooner: a killed process refuses the connection at once, so four refused pings a quarter second
 * apart say as much as effect's five half a second apart. A runner that is alive but slow still
 * answers within the ping timeout and stays healthy.
 */
import { Duration, Effect, Equal, Layer, Option, Schedule } from "effect"
import { RunnerHealth, Runners, RunnerStorage, ShardingConfig } from "effect/cluster"

/** How long one ping may take: a loaded runner answers late, but answers. */
const pingTimeout = Duration.seconds(10)

/** `RunnerHealth` by ping: alive when one of four pings, 250 ms apart, is answered. */
export const layerPing: Layer.Layer<RunnerHealth.RunnerHealth, never, Runners.Runners> = Layer.effect(
  RunnerHealth.RunnerHealth,
  Effect.gen(function* () {
    const runners = yield* Runners.Runners
    return RunnerHealth.RunnerHealth.of({
      isAlive: (address) =>
        runners
          .ping(address)
          .pipe(
            Effect.timeout(pingTimeout),
            Effect.retry({ times: 3, schedule: Schedule.spaced("250 millis") }),
            Effect.isSuccess
          )
    })
  })
)

/**
 * Every `runnerHealthCheckInterval`, checks the other runners `cluster_runners` lists as healthy and
 * marks those that do not answer unhealthy, as effect's singleton does, so their shards move at the
 * survivors' next assignment refresh. Never marks the last healthy runner (effect's rule too), and
 * never marks one healthy: that stays effect's (a restarted runner registers itself healthy).
 */
export const layerWatch: Layer.Layer<
  never,
  never,
  RunnerStorage.RunnerStorage | RunnerHealth.RunnerHealth | ShardingConfig.ShardingConfig
> = Layer.effectDiscard(
  Effect.gen(function* () {
    const storage = yield* RunnerStorage.RunnerStorage
    const health = yield* RunnerHealth.RunnerHealth
    const config = yield* ShardingConfig.ShardingConfig
    const self = Option.getOrUndefined(config.runnerAddress)
    if (self === undefined) return
    const check = Effect.gen(function* () {
      const runners = yield* storage.getRunners
      const healthy = runners.filter(([, ok]) => ok).map(([runner]) => runner.address)
      const others = healthy.filter((address) => !Equal.equals(address, self))
      if (healthy.length <= 1 || others.length === 0) return
      const alive = yield* Effect.forEach(others, health.isAlive, { concurrency: "unbounded" })
      const dead = others.filter((_, i) => !alive[i])
      // Keep one healthy runner at least (effect's own rule, against a cluster marking itself away).
      for (const address of dead.slice(0, healthy.length - 1)) {
        yield* storage.setRunnerHealth(address, false)
        yield* Effect.logWarning(`runner ${address.host}:${address.port} does not answer: its shards move`)
      }
    }).pipe(Effect.catchCause((cause) => Effect.logDebug("runner health watch failed", cause)))
    yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced(config.runnerHealthCheckInterval)))
  })
)
