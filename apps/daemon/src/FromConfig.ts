/**
 * From a checked config file to the `DaemonSpec` the daemon runs: connectors resolved, sinks built,
 * settings mapped. The admin token is generated when the file sets none (printed once by `warden run`).
 */
import { randomBytes } from "node:crypto"
import type { Connector } from "@warden/connector"
import { Sink as Plugin } from "@warden/sink"
import { Duration, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { type Checked, defaultRunnerAddress, toApiConfigInput } from "./config/index.ts"
import type * as Daemon from "./Daemon.ts"
import type { SourceSpec } from "./engine/Pipeline.ts"
import * as PluginSink from "./sinks/PluginSink.ts"
import { SinkList } from "./sinks/SinkList.ts"

/** The spec, and whether the admin token was generated (then it must be shown to the operator once). */
export interface FromConfig {
  readonly spec: Daemon.DaemonSpec
  readonly generatedToken: boolean
}

/** Maps a checked config to the daemon's spec. */
export const specOf = (checked: Checked): FromConfig => {
  const config = checked.config
  const millis = (d: unknown) => Duration.toMillis(Duration.fromInputUnsafe(d as Duration.Input))
  const strikes = {
    halfLifeMillis: millis(config.authors.strikes.halfLife),
    verdicts: config.authors.strikes.verdicts,
    rejection: config.authors.strikes.rejection
  }
  const sources: Array<SourceSpec> = config.sources.map((source) => {
    const connector = checked.connectors.get(source.id) as Connector.Connector
    return {
      settings: {
        id: source.id,
        connector: source.type ?? source.module ?? connector.type,
        channelId: source.channelId,
        mode: source.mode,
        analyse: new Set(source.analyse),
        oversize: source.oversize,
        dryRun: source.dryRun || config.dryRun,
        rules: source.rules,
        failure: {
          mode: source.failureMode.mode,
          afterMillis: Duration.toMillis(Duration.fromInputUnsafe(source.failureMode.after as Duration.Input)),
          action: source.failureMode.action
        },
        autoFeedback: source.autoFeedback,
        analysis: source.analysis,
        retentionMillis:
          source.retention === undefined
            ? undefined
            : Duration.toMillis(Duration.fromInputUnsafe(source.retention as Duration.Input)),
        platform: connector.type,
        connectorActions: connector.capabilities.actions,
        strikes
      },
      connector,
      config: source.config
    }
  })
  // Each sink made from its decoded config with the daemon as its host, its own migrations run first
  // on the state database (in its namespace); its retry window from the shared `retry` key. A sink
  // that cannot start fails the start naming its setting (StartupFailure).
  const sinks = Layer.effect(
    SinkList,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* Effect.forEach(config.sinks, (sink, i) => {
        const plugin = checked.sinks.get(sink.name)!
        return Plugin.migrate(plugin).pipe(
          Effect.andThen(
            PluginSink.make(plugin, sink.config, { name: sink.name, setting: (field) => `sinks.${i}.${field}`, sql })
          ),
          Effect.map((made) => ({ ...made, retryWindowMillis: millis(sink.retry.window) }))
        )
      })
    })
  )
  const token = config.admin.token ?? Redacted.make(randomBytes(18).toString("base64url"), { label: "admin token" })
  return {
    generatedToken: config.admin.token === undefined,
    spec: {
      state:
        config.state._tag === "Sqlite"
          ? { _tag: "sqlite", filename: config.state.filename }
          : { _tag: "postgres", url: config.state.url },
      api: toApiConfigInput(config.api),
      sources,
      sinks,
      sinkNames: config.sinks.map((s) => s.name),
      sinkStores: [...checked.sinks.values()].flatMap((plugin) => plugin.stores),
      admin: {
        host: config.admin.listen.host,
        port: config.admin.listen.port,
        token,
        public: config.admin.public,
        moderators: config.moderators
      },
      contentSinks: config.sinks.filter((s) => s.content).map((s) => s.name),
      authors: { strikes, appealWindowMillis: millis(config.authors.appealWindow) },
      // Used with state.postgres only: SQLite runs one process (SingleRunner), no network.
      runner: {
        listen: config.cluster.runnerAddress ?? defaultRunnerAddress,
        advertise: config.cluster.advertise
      },
      cluster: {
        ...(config.cluster.shardLockExpiration === undefined
          ? {}
          : { shardLockExpiration: config.cluster.shardLockExpiration as Duration.Input }),
        ...(config.cluster.shardLockRefreshInterval === undefined
          ? {}
          : { shardLockRefreshInterval: config.cluster.shardLockRefreshInterval as Duration.Input }),
        ...(config.cluster.refreshAssignmentsInterval === undefined
          ? {}
          : { refreshAssignmentsInterval: config.cluster.refreshAssignmentsInterval as Duration.Input }),
        ...(config.cluster.runnerHealthCheckInterval === undefined
          ? {}
          : { runnerHealthCheckInterval: config.cluster.runnerHealthCheckInterval as Duration.Input }),
        ...(config.cluster.entityMessagePollInterval === undefined
          ? {}
          : { entityMessagePollInterval: config.cluster.entityMessagePollInterval as Duration.Input })
      }
    }
  }
}
