/**
 * What each runner of the cluster reports about itself, for `GET /api/cluster`: the shards it holds,
 * the source singletons it runs, and the work its entities did. Each runner writes its own row every
 * few seconds (`warden_cluster_runners`); any runner's admin API reads them all, next to effect/cluster's
 * own view of the runners (`cluster_runners`: registered address and health).
 *
 * The table is created here (`IF NOT EXISTS`) rather than by a migration: it holds only live status,
 * rewritten every heartbeat, and nothing else reads it.
 */
import { Context, Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** One runner's report, as written. */
export interface RunnerReport {
  /** The address the other runners reach it at (`host:port`). */
  readonly address: string
  /** The shard numbers it holds (of `shardsPerGroup`). */
  readonly shards: ReadonlyArray<number>
  /** Singletons it runs: `source:<id>` and `sink:<name>`. */
  readonly singletons: ReadonlyArray<string>
  /** Events its `ItemBatch` entities processed since it started. */
  readonly items: number
  /** Batch messages its entities processed since it started. */
  readonly batches: number
  readonly startedAt: number
  readonly heartbeatAt: number
}

/**
 * A runner as `GET /api/cluster` shows it. Absent values are `null`, never `undefined`: the answer is
 * JSON (an `undefined` made the admin API fail to encode the whole answer once a runner had left).
 */
export const RunnerView = Schema.Struct({
  address: Schema.String,
  /** effect/cluster's verdict (`cluster_runners.healthy`); `null` when it has no row there. */
  healthy: Schema.NullOr(Schema.Boolean),
  /** No report for three heartbeats: the runner is gone or frozen. */
  stale: Schema.Boolean,
  shards: Schema.Number,
  shardIds: Schema.Array(Schema.Number),
  singletons: Schema.Array(Schema.String),
  items: Schema.Number,
  batches: Schema.Number,
  /** `null` for a runner effect/cluster lists that never reported (or whose report was removed). */
  startedAt: Schema.NullOr(Schema.String),
  heartbeatAt: Schema.NullOr(Schema.String)
})
/** @see {@link RunnerView} */
export type RunnerView = typeof RunnerView.Type

const ensured = new WeakSet<object>()

/** Creates the table once per client. */
const ensure = Effect.fn("ClusterStatus.ensure")(function* () {
  const sql = yield* SqlClient.SqlClient
  if (ensured.has(sql)) return sql
  yield* sql`CREATE TABLE IF NOT EXISTS warden_cluster_runners (
    address TEXT PRIMARY KEY,
    shards TEXT NOT NULL,
    singletons TEXT NOT NULL,
    items BIGINT NOT NULL,
    batches BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL
  )`.pipe(
    // Runners starting together race on IF NOT EXISTS (PostgreSQL then fails on its catalogue's unique
    // key): whoever lost finds the table made; a real failure shows at the next statement.
    Effect.catch(() => Effect.void)
  )
  ensured.add(sql)
  return sql
})

/** Writes (or replaces) this runner's report. */
export const write = Effect.fn("ClusterStatus.write")(function* (report: RunnerReport) {
  const sql = yield* ensure()
  const row = {
    address: report.address,
    shards: JSON.stringify(report.shards),
    singletons: JSON.stringify(report.singletons),
    items: report.items,
    batches: report.batches,
    started_at: report.startedAt,
    heartbeat_at: report.heartbeatAt
  }
  yield* sql`INSERT INTO warden_cluster_runners ${sql.insert(row)}
    ON CONFLICT (address) DO UPDATE SET shards = ${row.shards}, singletons = ${row.singletons},
    items = ${row.items}, batches = ${row.batches}, started_at = ${row.started_at}, heartbeat_at = ${row.heartbeat_at}`
})

/** Removes this runner's report (on a graceful leave). */
export const remove = Effect.fn("ClusterStatus.remove")(function* (address: string) {
  const sql = yield* ensure()
  yield* sql`DELETE FROM warden_cluster_runners WHERE address = ${address}`
})

const decodeAddresses = Rows.decode("warden_cluster_runners", Schema.Struct({ address: Schema.String }))

/** Forgets reports older than `before` (epoch millis) of runners effect/cluster no longer knows. */
const forgetGone = (sql: SqlClient.SqlClient, before: number, known: ReadonlySet<string>) =>
  sql`SELECT address FROM warden_cluster_runners WHERE heartbeat_at < ${before}`.pipe(
    Effect.flatMap(decodeAddresses),
    Effect.flatMap((rows) => {
      const gone = rows.map((r) => r.address).filter((a) => !known.has(a))
      return gone.length === 0
        ? Effect.void
        : sql`DELETE FROM warden_cluster_runners WHERE ${sql.in("address", gone)}`.pipe(Effect.asVoid)
    })
  )

/** A runner's report as stored: shard ids and singleton names as JSON text, counts and epochs as integers. */
const ReportRow = Schema.Struct({
  address: Schema.String,
  shards: Schema.fromJsonString(Schema.Array(Schema.Number)),
  singletons: Schema.fromJsonString(Schema.Array(Schema.String)),
  items: Rows.Int,
  batches: Rows.Int,
  started_at: Rows.Int,
  heartbeat_at: Rows.Int
})
const decodeReports = Rows.decode("warden_cluster_runners", ReportRow)

/** effect/cluster's registered runner: `healthy` is a BOOLEAN on PostgreSQL, 0 or 1 on SQLite. */
const decodeRegistered = Rows.decode(
  "cluster_runners",
  Schema.Struct({ address: Schema.String, healthy: Schema.Union([Schema.Boolean, Rows.Int]) })
)

/**
 * Every runner: effect/cluster's registered runners joined with the reports. `staleAfter` (millis):
 * a report older than that marks the runner stale; an hour-old report of a runner effect/cluster has
 * forgotten is deleted.
 */
export const list = Effect.fn("ClusterStatus.list")(function* (now: number, staleAfter: number) {
  const sql = yield* ensure()
  const registered = yield* sql`SELECT address, healthy FROM cluster_runners`.pipe(
    Effect.catch(() => Effect.succeed([])),
    Effect.flatMap(decodeRegistered)
  )
  const health = new Map(registered.map((r) => [r.address, r.healthy === true || r.healthy === 1]))
  yield* forgetGone(sql, now - 3_600_000, new Set(health.keys()))
  const reports =
    yield* sql`SELECT address, shards, singletons, items, batches, started_at, heartbeat_at FROM warden_cluster_runners`.pipe(
      Effect.flatMap(decodeReports)
    )
  const byAddress = new Map(reports.map((r) => [r.address, r]))
  const addresses = [...new Set([...health.keys(), ...byAddress.keys()])].sort()
  return addresses.map((address): RunnerView => {
    const r = byAddress.get(address)
    const shardIds = r === undefined ? [] : r.shards
    const heartbeatAt = r === undefined ? null : r.heartbeat_at
    return {
      address,
      healthy: health.get(address) ?? null,
      stale: heartbeatAt === null || now - heartbeatAt > staleAfter,
      shards: shardIds.length,
      shardIds,
      singletons: r === undefined ? [] : r.singletons,
      items: r === undefined ? 0 : r.items,
      batches: r === undefined ? 0 : r.batches,
      startedAt: r === undefined ? null : new Date(r.started_at).toISOString(),
      heartbeatAt: heartbeatAt === null ? null : new Date(heartbeatAt).toISOString()
    }
  })
})

/** The answer of `GET /api/cluster`. */
export const ClusterOverview = Schema.Struct({
  /** `single`: SQLite, one process (`SingleRunner`); `cluster`: PostgreSQL socket runners. */
  mode: Schema.Literals(["single", "cluster"]),
  /** The address of the runner that answered. */
  self: Schema.String,
  shardsPerGroup: Schema.Number,
  runners: Schema.Array(RunnerView)
})
/** @see {@link ClusterOverview} */
export type ClusterOverview = typeof ClusterOverview.Type

/** The cluster as this runner sees it (implemented next to the cluster layer, read by the admin API). */
export class ClusterView extends Context.Service<ClusterView, { readonly overview: Effect.Effect<ClusterOverview> }>()(
  "@warden/daemon/ClusterView"
) {}
