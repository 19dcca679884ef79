/**
 * Appends each verdict to the `warden_verdicts` table of the state database: one row per item version
 * (`source`, `reference`, `version` are the key, so a redelivery changes nothing), for dashboards and
 * jobs that read SQL rather than a stream.
 */
import { Array as Arr, Effect, Result } from "effect"
import { SqlClient } from "effect/sql"
import * as QueuedRecord from "./QueuedRecord.ts"
import { type DeliveryResult, permanent, retryable, type Sink } from "./Sink.ts"

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
      deliver: (records) =>
        Effect.gen(function* () {
          // Each record decoded for its columns; one that does not decode fails alone, with the reason
          // (dead-lettered at once); a write the database refused is retried.
          const decoded = records.map(QueuedRecord.decode)
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
                    recorded_at: Date.now()
                  }
                ]
          })
          const written: DeliveryResult = Arr.isArrayNonEmpty(rows)
            ? yield* sql`INSERT INTO warden_verdicts ${sql.insert(rows)} ON CONFLICT DO NOTHING`.pipe(
                Effect.match({
                  onSuccess: () => undefined,
                  onFailure: (error) => retryable(`cannot write warden_verdicts: ${error.message}`)
                })
              )
            : undefined
          return decoded.map((r) => (Result.isFailure(r) ? permanent(r.failure) : written))
        })
    }
    return sink
  })
