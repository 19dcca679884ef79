/**
 * The handlers of `/healthz`, `/readyz` and `/metrics` (`ProbesApi.ts`): readiness from the state store
 * and the sources, and the metrics refreshed as Prometheus scrapes them.
 */
import { Clock, Effect, Metric } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PrometheusMetrics } from "effect/observability"
import { SqlClient } from "effect/sql"
import * as Metrics from "../engine/Metrics.ts"
import { SourceStatus } from "../engine/SourceStatus.ts"
import { CheckpointStore } from "../state/CheckpointStore.ts"
import { OutboxStore } from "../state/OutboxStore.ts"
import { ReviewStore } from "../state/ReviewStore.ts"
import * as StateStats from "../state/StateStats.ts"
import { AdminApi } from "./AdminApi.ts"
import * as ProcessMetrics from "./ProcessMetrics.ts"
import { NotReady } from "./ProbesApi.ts"
import * as Readiness from "./Readiness.ts"

/** `/healthz`. */
export const health = HttpApiBuilder.group(AdminApi, "health", (handlers) =>
  handlers.handle("healthz", () => Effect.succeed({ status: "ok" as const }))
)

/** How long `/readyz` waits for the state store's write probe (orchestrators' probes time out at 1-10 s). */
const storeProbeSeconds = 3

/** `/readyz` and `/metrics`. */
export const probes = HttpApiBuilder.group(AdminApi, "probes", (handlers) =>
  Effect.gen(function* () {
    const checkpoints = yield* CheckpointStore
    const sql = yield* SqlClient.SqlClient
    const status = yield* SourceStatus
    const outbox = yield* OutboxStore

    const readiness = Effect.gen(function* () {
      // A database that does not answer (a network partition, a server that accepts and hangs) must
      // make the probe answer 503, not time out the orchestrator's request without a reason.
      const storeProblem = yield* checkpoints.writable.pipe(
        Effect.as<string | undefined>(undefined),
        Effect.catch((e) => Effect.succeed(e.message)),
        Effect.timeoutOrElse({
          duration: `${storeProbeSeconds} seconds`,
          orElse: () => Effect.succeed(`no answer within ${storeProbeSeconds} s`)
        })
      )
      return Readiness.report({
        storeProblem,
        states: yield* status.all,
        unrecognised: yield* status.unrecognised,
        lastVerdicts: yield* status.lastVerdicts,
        now: yield* Clock.currentTimeMillis,
        // A store that cannot be read is the store's problem, said above: no sink line then.
        failingSinks: yield* outbox.failing.pipe(
          Effect.orElseSucceed(() => []),
          Effect.timeoutOrElse({ duration: `${storeProbeSeconds} seconds`, orElse: () => Effect.succeed([]) })
        )
      })
    })

    // Table sizes scan the database (dbstat reads every page): at most once a minute.
    let statsAt = 0
    const stateMetrics = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (now - statsAt < 60_000) return
      statsAt = now
      const stats = yield* StateStats.read().pipe(Effect.provideService(SqlClient.SqlClient, sql))
      for (const t of stats.tables) {
        yield* Metric.update(Metric.withAttributes(Metrics.stateTableRows, { table: t.table }), t.rows)
        yield* Metric.update(Metric.withAttributes(Metrics.stateTableBytes, { table: t.table }), t.bytes)
      }
      yield* Metric.update(
        Metrics.oldestUnprocessedSeconds,
        stats.oldestUnprocessedAt === undefined
          ? 0
          : ((yield* Clock.currentTimeMillis) - stats.oldestUnprocessedAt) / 1000
      )
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("state table stats failed", cause)))

    // The review queue per source: pending rows and the oldest one's age (0 once a source's queue empties).
    const reviews = yield* ReviewStore
    const queued = new Set<string>()
    const reviewMetrics = Effect.gen(function* () {
      const pending = yield* reviews.pending
      const now = yield* Clock.currentTimeMillis
      const current = new Map(pending.bySource.map((s) => [s.source, s]))
      for (const source of new Set([...queued, ...current.keys()])) {
        queued.add(source)
        const s = current.get(source)
        yield* Metric.update(Metric.withAttributes(Metrics.reviewPending, { source }), s?.count ?? 0)
        yield* Metric.update(
          Metric.withAttributes(Metrics.reviewOldestPendingSeconds, { source }),
          s === undefined ? 0 : Math.max(0, (now - s.oldestAt) / 1000)
        )
      }
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("review queue metrics failed", cause)))

    return handlers
      .handle("readyz", () =>
        Effect.flatMap(readiness, (report) =>
          report.ready ? Effect.succeed(report) : Effect.fail(new NotReady({ _tag: "NotReady", ...report }))
        )
      )
      .handle("metrics", () =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          for (const [source, state] of yield* status.all) {
            if (state.lastCommit !== undefined) {
              yield* Metric.update(
                Metric.withAttributes(Metrics.checkpointLag, { source }),
                (now - state.lastCommit) / 1000
              )
            }
          }
          yield* stateMetrics
          yield* reviewMetrics
          yield* ProcessMetrics.update
          return yield* PrometheusMetrics.format()
        })
      )
  })
)
