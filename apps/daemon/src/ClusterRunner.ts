/**
 * The daemon's place in effect/cluster: which runner layer it runs, and what it reports about itself.
 *
 * - SQLite (the default): `SingleRunner`, one process, no network; unchanged.
 * - PostgreSQL: a socket runner. It listens for the other runners on `listen`, registers `advertise`
 *   (default: the listen address) in `cluster_runners`, pings the others, and holds the shards the
 *   hash ring gives it (advisory locks). A runner that stops answering loses its shards, and with them
 *   its `ItemBatch` partitions and source/sink singletons, to the survivors.
 *
 * The layers are composed here rather than with `NodeClusterSocket.layer`, which also reads
 * `ShardingConfig` from the environment (`HOST`, `PORT`, ...): a variable meant for something else
 * must never move a runner.
 */
import { createServer } from "node:net"
import type * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { Clock, type Config, Context, Duration, Effect, Layer, Option, Schedule, Schema } from "effect"
import {
  EntityId,
  type MessageStorage,
  RunnerAddress,
  Runners,
  ShardId,
  Sharding,
  ShardingConfig,
  SingleRunner,
  SocketRunner,
  SqlMessageStorage,
  SqlRunnerStorage
} from "effect/cluster"
import { RpcSerialization } from "effect/rpc"
import type { SocketServer } from "effect/socket"
import { SqlClient } from "effect/sql"
import * as ClusterHealth from "./ClusterHealth.ts"
import { format, type HostPort } from "./domain/HostPort.ts"
import * as ClusterStatus from "./state/ClusterStatus.ts"
import * as RepeatedWarnings from "./state/RepeatedWarnings.ts"
import { StateHealth } from "./state/StateHealth.ts"

export type { HostPort } from "./domain/HostPort.ts"

/** How a PostgreSQL daemon joins the cluster. */
export interface RunnerOptions {
  /** Where it listens for the other runners; port 0 picks a free port at start (tests). */
  readonly listen: HostPort
  /** The address the others reach it at, when it differs from `listen` (containers, NAT, 0.0.0.0). */
  readonly advertise?: HostPort | undefined
}

/** effect/cluster settings a config may override. */
export type ClusterSettings = Partial<ShardingConfig.ShardingConfig["Service"]>

/**
 * Takeover settings of the PostgreSQL cluster (effect's defaults take ~37 s to move a killed runner's
 * shards: the others check its health once a minute). Every one is a `cluster.*` key.
 *
 * A killed runner's advisory locks go with its database session at once, so after a kill -9 the
 * health check decides: every runner pings the others every second (`ClusterHealth`), a runner whose
 * pings are refused for ~1 s is marked unhealthy, and the survivors re-read the assignments every
 * 500 ms and take its shards. The lock lease keeps effect's defaults (`shardLockExpiration` 35 s,
 * refreshed every 10 s): it matters only for a frozen runner whose session stays open, and every lock
 * operation must finish within the refresh interval or effect drops all of the runner's shards. With
 * 12 s / 4 s, three runners on two cores at load 40-50 timed out on those operations every few seconds
 * ("Shard lock storage is unhealthy"), dropped and re-took their shards in a loop, and batches waited
 * in `cluster_messages` for minutes (the cluster test's "slow delivery after the kill").
 */
export const fastTakeover: ClusterSettings = {
  refreshAssignmentsInterval: "500 millis",
  runnerHealthCheckInterval: "1 second",
  entityMessagePollInterval: "500 millis"
}

/**
 * How often the one SQLite process re-reads `cluster_messages` on its own. Delivery never waits for it:
 * sending a batch opens effect's storage read at once, and so does an entity's registration at start
 * (a restart's unprocessed batches). The poll only catches what nothing announced, such as a message
 * left behind by a full mailbox. Each poll lists all 300 shards in its query, ~2 ms of CPU: at
 * `500 millis` they were a third of an idle daemon's CPU (11.8-12.3 against 7.5 ms per second with
 * `5 seconds`; docs/BENCHMARKS.md, "An idle daemon, halved"). Effect's own default is 10 seconds.
 */
export const singleRunnerPollInterval = "5 seconds"

/**
 * How often the one SQLite process re-reads the runners and recomputes the shard assignments. With one
 * runner they never change after start (StateOwner keeps a second daemon off the file), and the first
 * read runs at once. Effect's default, 3 s, cost ~0.85 ms each (0.3 ms of an idle daemon's ~4.7 ms of
 * CPU per second; docs/BENCHMARKS.md, "An idle daemon, quieter").
 */
export const singleRunnerRefreshInterval = "30 seconds"

/** This runner, as the rest of the daemon sees it. */
export class RunnerIdentity extends Context.Service<
  RunnerIdentity,
  {
    /** `single` (SQLite, one process) or `cluster` (PostgreSQL socket runners). */
    readonly mode: "single" | "cluster"
    /** The address registered for the others (`host:port`). */
    readonly address: string
    /** Work done by this runner's `ItemBatch` entities (mutable counters). */
    readonly work: { items: number; batches: number }
  }
>()("@warden/daemon/RunnerIdentity") {}

/** The runner cannot listen on `cluster.runnerAddress` (in use, or not an address of this machine). */
export class RunnerListenError extends Schema.TaggedError<RunnerListenError>()("RunnerListenError", {
  address: Schema.String,
  message: Schema.String
}) {}

/** The one line an operator reads when the listen address fails. */
const listenError = (address: HostPort, cause: unknown) => {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause
  const why = typeof inner?.code === "string" ? inner.code : String((inner?.message ?? cause) as string)
  const what =
    why === "EADDRINUSE" ? "address already in use" : why === "EADDRNOTAVAIL" ? "not an address of this machine" : why
  return new RunnerListenError({ address: format(address), message: `cannot listen on ${format(address)}: ${what}` })
}

/** A free TCP port on `host`, for a listen port of 0 (the advertised address must name the real port). */
const freePort = (host: string) =>
  Effect.callback<number, Error>((resume) => {
    const server = createServer()
    server.once("error", (e) => resume(Effect.fail(e)))
    server.listen(0, host, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resume(Effect.succeed(port)))
    })
  })

/** The listen and advertised addresses, with a port 0 resolved to a free port. */
const resolveAddresses = (options: RunnerOptions) =>
  Effect.gen(function* () {
    const port = options.listen.port === 0 ? yield* freePort(options.listen.host) : options.listen.port
    const listen = { host: options.listen.host, port }
    return { listen, advertise: options.advertise ?? listen }
  })

/**
 * A socket runner on PostgreSQL (any `SqlClient` with advisory locks), with `ClusterHealth`'s ping and
 * watch: one `RunnerHealth` and one `RunnerStorage` shared by effect's sharding and the watch.
 */
const socketRunner = (config: ClusterSettings, socket: typeof NodeClusterSocket) => {
  const health = ClusterHealth.layerPing.pipe(
    Layer.provide(Runners.layerRpc),
    Layer.provide(socket.layerClientProtocol)
  )
  return Layer.merge(
    SocketRunner.layer.pipe(Layer.provide([socket.layerSocketServer, socket.layerClientProtocol])),
    ClusterHealth.layerWatch
  ).pipe(
    Layer.provide(health),
    Layer.provideMerge(SqlMessageStorage.layer),
    Layer.provide(Layer.orDie(SqlRunnerStorage.layer)),
    Layer.provideMerge(ShardingConfig.layer(config)),
    // NDJSON between runners: effect's schema-binary codec cannot lay out the `Process` payload's
    // unions ("Binary layout sentinel collision"), which failed every batch sent to another runner.
    Layer.provide(RpcSerialization.layerNdjson),
    Layer.provide(NodeCrypto.layerDigest)
  )
}

/**
 * The cluster layer: `SingleRunner` without `runner`, a socket runner with it. Also provides
 * `RunnerIdentity`.
 */
export const layer = (
  runner: RunnerOptions | undefined,
  settings: ClusterSettings = {}
): Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage | ShardingConfig.ShardingConfig | RunnerIdentity,
  RunnerListenError | SocketServer.SocketServerError | Config.ConfigError,
  SqlClient.SqlClient
> => {
  if (runner === undefined) {
    const config: ClusterSettings = {
      // Set in code so a PORT/HOST in the environment meant for something else is never picked up.
      runnerAddress: Option.some(RunnerAddress.make("127.0.0.1", 0)),
      entityMessagePollInterval: singleRunnerPollInterval,
      refreshAssignmentsInterval: singleRunnerRefreshInterval,
      ...settings
    }
    return SingleRunner.layer({ shardingConfig: config }).pipe(
      Layer.provide(NodeCrypto.layerDigest),
      Layer.merge(ShardingConfig.layer(config)),
      Layer.merge(
        Layer.sync(RunnerIdentity, () => ({
          mode: "single" as const,
          address: "127.0.0.1:0",
          work: { items: 0, batches: 0 }
        }))
      )
    )
  }
  return Layer.unwrap(
    Effect.gen(function* () {
      const { listen, advertise } = yield* resolveAddresses(runner).pipe(
        Effect.mapError((e) => listenError(runner.listen, { cause: e }))
      )
      const config: ClusterSettings = {
        ...fastTakeover,
        ...settings,
        runnerAddress: Option.some(RunnerAddress.make(advertise.host, advertise.port)),
        runnerListenAddress: Option.some(RunnerAddress.make(listen.host, listen.port))
      }
      // Loaded only for a socket runner: the socket layers and what they bring (~11 MB of RSS) are of
      // no use to the default SQLite daemon.
      const socket = yield* Effect.promise(() => import("@effect/platform-node/NodeClusterSocket"))
      const inner = socketRunner(config, socket)
      return inner.pipe(
        // Same outputs, so the layer keeps its type: the failure is all it carries.
        Layer.catchTag("SocketServerError", (e) =>
          Layer.unwrap(Effect.as(Effect.fail(listenError(listen, e.reason)), inner))
        ),
        Layer.merge(
          Layer.sync(RunnerIdentity, () => ({
            mode: "cluster" as const,
            address: format(advertise),
            work: { items: 0, batches: 0 }
          }))
        )
      )
    })
  )
}

/** How often a runner writes its report; three missed reports mark it stale in `/api/cluster`. */
export const reportInterval = Duration.seconds(2)

/**
 * `ClusterView` for the admin API. In cluster mode the runner also writes its report
 * (`ClusterStatus`) every `reportInterval`, so any runner can show every runner: the shards it holds,
 * the singletons it runs (found from their shard, as effect/cluster places them), its work counters.
 */
export const viewLayer = (sources: ReadonlyArray<string>, sinks: ReadonlyArray<string>) =>
  Layer.effect(
    ClusterStatus.ClusterView,
    Effect.gen(function* () {
      const sharding = yield* Sharding.Sharding
      const config = yield* ShardingConfig.ShardingConfig
      const identity = yield* RunnerIdentity
      const sql = yield* SqlClient.SqlClient
      const health = yield* StateHealth
      // Every 2 s while the database is away: the store's outage line says it once, the rest a line a minute.
      const warnings = RepeatedWarnings.make()
      const startedAt = yield* Clock.currentTimeMillis
      const singletonNames = [
        ...sources.map((id) => [`source:${id}`, `warden/source/${id}`] as const),
        ...sinks.map((name) => [`sink:${name}`, `warden/sink/${name}`] as const)
      ]
      const self = Effect.map(Clock.currentTimeMillis, (now): ClusterStatus.RunnerReport => {
        const shards: Array<number> = []
        for (let i = 1; i <= config.shardsPerGroup; i++) {
          if (sharding.hasShardId(ShardId.make("default", i))) shards.push(i)
        }
        const singletons = singletonNames
          .filter(([, name]) => sharding.hasShardId(sharding.getShardId(EntityId.make(name), "default")))
          .map(([label]) => label)
        return {
          address: identity.address,
          shards,
          singletons,
          items: identity.work.items,
          batches: identity.work.batches,
          startedAt,
          heartbeatAt: now
        }
      })
      const staleAfter = 3 * Duration.toMillis(reportInterval)
      if (identity.mode === "cluster") {
        // A write of the store like any other: a database lost while nothing else of the daemon's writes
        // (no item, the runner holding no shard yet) is the state store's one outage line all the same.
        const write = self.pipe(
          Effect.flatMap(ClusterStatus.write),
          Effect.provideService(SqlClient.SqlClient, sql),
          health.observe("cluster status"),
          Effect.catchCause((cause) =>
            health.covers(cause) ? Effect.void : warnings.log("report", "Warn", "cluster status report failed", cause)
          )
        )
        yield* Effect.forkScoped(Effect.repeat(write, Schedule.spaced(reportInterval)))
        yield* Effect.addFinalizer(() =>
          Effect.ignore(ClusterStatus.remove(identity.address).pipe(Effect.provideService(SqlClient.SqlClient, sql)))
        )
      }
      const overview = Effect.gen(function* () {
        const mine = yield* self
        const listed =
          identity.mode === "cluster"
            ? yield* ClusterStatus.list(yield* Clock.currentTimeMillis, staleAfter).pipe(
                Effect.provideService(SqlClient.SqlClient, sql),
                Effect.catchCause((cause) =>
                  Effect.as(
                    health.covers(cause) ? Effect.void : warnings.log("read", "Warn", "cluster status not read", cause),
                    [] as ReadonlyArray<ClusterStatus.RunnerView>
                  )
                )
              )
            : []
        const live: ClusterStatus.RunnerView = {
          address: mine.address,
          healthy: listed.find((r) => r.address === mine.address)?.healthy ?? true,
          stale: false,
          shards: mine.shards.length,
          shardIds: mine.shards,
          singletons: mine.singletons,
          items: mine.items,
          batches: mine.batches,
          startedAt: new Date(startedAt).toISOString(),
          heartbeatAt: new Date(mine.heartbeatAt).toISOString()
        }
        return {
          mode: identity.mode,
          self: identity.address,
          shardsPerGroup: config.shardsPerGroup,
          runners: [live, ...listed.filter((r) => r.address !== mine.address)]
        }
      })
      return { overview }
    })
  )
