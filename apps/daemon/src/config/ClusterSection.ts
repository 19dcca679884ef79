/**
 * The `cluster` section of `warden.yaml`: the multi-runner settings (effect/cluster's
 * `ShardingConfig`) and where a PostgreSQL daemon listens by default.
 */
import { Duration, Schema } from "effect"
import { durationAtLeast, HostPortString } from "../domain/internal/Schemas.ts"

/** Where a PostgreSQL daemon listens for the other runners when `cluster.runnerAddress` is not set. */
export const defaultRunnerAddress = { host: "127.0.0.1", port: 34431 } as const

/**
 * Multi-runner settings (effect/cluster's `ShardingConfig`); all optional. With `state.postgres` the
 * daemon listens for the other runners on `runnerAddress` and tells them to reach it at `advertise`
 * (default: `runnerAddress`, for containers and NAT where the two differ).
 */
export const ClusterSection = Schema.Struct({
  runnerAddress: Schema.optionalKey(HostPortString),
  advertise: Schema.optionalKey(HostPortString),
  shardLockExpiration: Schema.optionalKey(durationAtLeast("1 second")),
  shardLockRefreshInterval: Schema.optionalKey(durationAtLeast("100 millis")),
  refreshAssignmentsInterval: Schema.optionalKey(durationAtLeast("100 millis")),
  runnerHealthCheckInterval: Schema.optionalKey(durationAtLeast("100 millis")),
  entityMessagePollInterval: Schema.optionalKey(durationAtLeast("10 millis"))
}).check(
  Schema.makeFilter(
    (c) =>
      c.shardLockExpiration === undefined ||
      c.shardLockRefreshInterval === undefined ||
      Duration.isLessThan(c.shardLockRefreshInterval, c.shardLockExpiration) || {
        path: ["shardLockRefreshInterval"],
        issue: "must be shorter than shardLockExpiration (the lock would expire between two refreshes)"
      }
  )
)
/** @see {@link ClusterSection} */
export type ClusterSection = typeof ClusterSection.Type
