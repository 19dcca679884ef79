/**
 * Appends each verdict to the `warden_verdicts` table of the state database: one row per item version
 * (`source`, `reference`, `version` are the key, so a redelivery changes nothing), for dashboards and
 * jobs that read SQL rather than a stream.
 */
import { Array as Arr, Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { Sink } from "./Sink.ts"

/** The sql sink, on the state store's SQL client. */
export const make = (options: { readonly name: string }) =>
  Effect.gen(function* () {
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
    const sink: Sink = {
      name: options.name,
      type: "sql",
      batchSize: 256,
      maxAttempts: 10,
      deliver: (records) =>
        Arr.isReadonlyArrayNonEmpty(records)
          ? sql`INSERT INTO warden_verdicts ${sql.insert(
              Arr.map(records, (r) => ({
                source: r.source,
                reference: r.reference,
                version: r.version,
                status: r.status,
                verdict_type: r.verdict?.type ?? null,
                severity: r.verdict?.severity ?? null,
                recommended_action: r.verdict?.recommendedAction ?? null,
                record: JSON.stringify(r),
                recorded_at: Date.now()
              }))
            )} ON CONFLICT DO NOTHING`.pipe(
              Effect.match({
                onSuccess: () => records.map(() => undefined),
                onFailure: (error) => records.map(() => `cannot write warden_verdicts: ${error.message}`)
              })
            )
          : Effect.succeed([])
    }
    return sink
  })
