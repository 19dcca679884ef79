/**
 * Appends each verdict to the `warden_verdicts` table of the state database: one row per item version
 * (`source`, `reference`, `version` are the key, so a redelivery changes nothing), for dashboards and
 * jobs that read SQL rather than a stream. The table is the sink's own migration (run by the daemon's
 * migrator in the sink's namespace, `warden_sink_sql_migrations`), and declared as a store: erasure and
 * retention rewrite its `record` column without the content and the author.
 */
import { DeliveryResult, Sink as Plugin, SinkError } from "@warden/sink"
import { Array as Arr, Clock, Effect, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as PluginSink from "./PluginSink.ts"
import * as QueuedRecord from "./QueuedRecord.ts"

/** The sql sink's table: `IF NOT EXISTS`, as the sink made it itself before its migration. */
const createVerdicts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS warden_verdicts (
    source TEXT NOT NULL,
    reference TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    verdict_type TEXT,
    severity TEXT,
    recommended_action TEXT,
    record TEXT NOT NULL,
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (source, reference, version)
  )`
})

/** Writes records to `warden_verdicts`: one that does not decode is refused for good, a failed insert for now. */
const deliverer = (sql: SqlClient.SqlClient): Plugin.Deliverer => ({
  deliver: (records) =>
    Effect.gen(function* () {
      // Each record decoded for its columns; one that does not decode fails alone, with the reason.
      const decoded = records.map(QueuedRecord.decode)
      const now = yield* Clock.currentTimeMillis
      const rows = records.flatMap((q, i) => {
        const r = decoded[i]!
        return Result.isFailure(r)
          ? []
          : [
              {
                source: q.source,
                reference: q.reference,
                version: q.version,
                status: r.success.status,
                verdict_type: r.success.verdict?.type ?? null,
                severity: r.success.verdict?.severity ?? null,
                recommended_action: r.success.verdict?.recommendedAction ?? null,
                record: q.json,
                recorded_at: now
              }
            ]
      })
      const written = Arr.isArrayNonEmpty(rows)
        ? yield* sql`INSERT INTO warden_verdicts ${sql.insert(rows)} ON CONFLICT DO NOTHING`.pipe(
            Effect.match({
              onSuccess: () => DeliveryResult.delivered,
              onFailure: (error) => DeliveryResult.retryable(`cannot write warden_verdicts: ${error.message}`)
            })
          )
        : DeliveryResult.delivered
      return decoded.map((r) => (Result.isFailure(r) ? DeliveryResult.permanent(r.failure) : written))
    })
})

/** The sql sink, declared with the sink SDK: its table, its store, the state database as its host's. */
export const sink = Plugin.make({
  type: "sql",
  configSchema: Schema.Struct({}),
  delivery: "idempotent",
  batchSize: 256,
  migrations: { "0001_warden_verdicts": createVerdicts },
  stores: [{ table: "warden_verdicts", records: ["record"] }],
  make: (_, host) =>
    host.sql === undefined
      ? Effect.fail(new SinkError({ sink: "sql", message: "needs the state database" }))
      : Effect.succeed(deliverer(host.sql))
})

/** The sql sink on the state store's SQL client, its migrations run first (tests'). */
export const make = (options: { readonly name: string }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* Plugin.migrate(sink)
    return PluginSink.of(sink, deliverer(sql), { name: options.name })
  })
