/**
 * What the console's pipeline page shows besides `/readyz` and `/api/quota`: each sink's backlog,
 * dead letters and since when it fails (while it does), what was recorded per source and status, and verdicts per minute by type over the
 * last hour (for the chart). Read straight from the state store, so it counts every runner's work.
 */
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as Rows from "../state/internal/Rows.ts"
import { OutboxStore } from "../state/OutboxStore.ts"
import type { Pipeline } from "./ConsoleApi.ts"

/** Rows per sink (COUNT is a BIGINT string on PostgreSQL). */
const SinkCount = Schema.Struct({ sink: Schema.String, n: Rows.Int })
const decodeBacklog = Rows.decode("warden_outbox", SinkCount)
const decodeDeadLetters = Rows.decode("warden_dead_letters", SinkCount)
/** Item versions per source and status. */
const decodeItems = Rows.decode(
  "warden_items",
  Schema.Struct({ source: Schema.String, status: Schema.String, n: Rows.Int })
)
/** Verdicts per minute (`created_at / 60000`: a BIGINT on PostgreSQL) and type (`null`: none). */
const decodeMinutes = Rows.decode("warden_items", Schema.Struct({ minute: Rows.Int, type: Rows.Text, n: Rows.Int }))

const decodeSinks = Rows.decode("warden_outbox", Schema.Struct({ sink: Schema.String }))

/**
 * The sinks the pipeline lists: the configured ones, and any other with rows in the outbox or dead
 * letters (a sink since removed from the file). What `POST /api/sinks/{sink}/replay` knows.
 */
export const listedSinks = (sql: SqlClient.SqlClient, sinks: ReadonlyArray<string>) =>
  Effect.map(
    Effect.flatMap(
      sql`SELECT DISTINCT sink FROM warden_outbox UNION SELECT DISTINCT sink FROM warden_dead_letters`,
      decodeSinks
    ),
    (rows) => [...new Set([...sinks, ...rows.map((r) => r.sink)])].sort((a, b) => a.localeCompare(b))
  )

/**
 * Reads the counters (`GET /api/pipeline`, `AdminApi.Pipeline`); `sinks` names the configured sinks,
 * so an empty queue shows as 0.
 */
export const read = (sql: SqlClient.SqlClient, sinks: ReadonlyArray<string>, now: number) =>
  Effect.gen(function* () {
    const backlog = yield* decodeBacklog(yield* sql`SELECT sink, COUNT(*) AS n FROM warden_outbox GROUP BY sink`)
    const dead = yield* decodeDeadLetters(yield* sql`SELECT sink, COUNT(*) AS n FROM warden_dead_letters GROUP BY sink`)
    const failing = new Map(
      (yield* Effect.flatMap(OutboxStore, (store) => store.failing)).map((f) => [f.sink, f.since] as const)
    )
    const queues = new Map<string, { backlog: number; deadLetters: number }>()
    for (const sink of sinks) queues.set(sink, { backlog: 0, deadLetters: 0 })
    for (const r of backlog) queues.set(r.sink, { backlog: r.n, deadLetters: 0 })
    for (const r of dead) queues.set(r.sink, { backlog: queues.get(r.sink)?.backlog ?? 0, deadLetters: r.n })
    const items = yield* decodeItems(
      yield* sql`SELECT source, status, COUNT(*) AS n FROM warden_items GROUP BY source, status ORDER BY source, status`
    )
    // The listing index's range on created_at: the last hour only, whatever the table's size.
    const hourAgo = Math.floor(now / 60_000) * 60_000 - 59 * 60_000
    const minutes = yield* decodeMinutes(
      yield* sql`SELECT (created_at / 60000) AS minute, verdict_type AS type, COUNT(*) AS n FROM warden_items
        WHERE created_at >= ${hourAgo} GROUP BY (created_at / 60000), verdict_type`
    )
    return {
      sinks: [...queues]
        .map(([sink, q]) => {
          const since = failing.get(sink)
          return { sink, ...q, ...(since === undefined ? {} : { failingSince: new Date(since).toISOString() }) }
        })
        .sort((a, b) => a.sink.localeCompare(b.sink)),
      items: items.map((r) => ({ source: r.source, status: r.status, count: r.n })),
      verdictsPerMinute: minutes.map((r) => ({
        minute: Math.floor(r.minute) * 60_000,
        type: r.type ?? "none",
        count: r.n
      }))
    } satisfies typeof Pipeline.Type
  })
