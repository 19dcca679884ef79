/**
 * "Replay" of a sink's dead letters (the review console's pipeline page, `POST /api/sinks/{sink}/replay`):
 * each goes back into the sink's outbox with its attempts reset, in one transaction, and the sink's
 * worker, woken by the commit (WriteSignals), delivers it as any other row. A row already back in the
 * outbox is not queued twice.
 */
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { AuditStore } from "./AuditStore.ts"
import * as Rows from "./internal/Rows.ts"
import { WriteSignals } from "./WriteSignals.ts"

const decodeCount = Rows.decodeCount("warden_dead_letters")

/**
 * Moves every dead letter of `sink` back to its outbox; returns how many were moved. The audit row
 * (`replay`, by `actor`) is written in the same transaction.
 */
export const replay = (
  sql: SqlClient.SqlClient,
  sink: string,
  actor: { readonly name: string; readonly role: string }
) =>
  Effect.flatMap(WriteSignals, (signals) =>
    moveBack(sql, sink, actor).pipe(
      Effect.tap((moved) =>
        Effect.sync(() => {
          if (moved > 0) signals.outbox.ring()
        })
      )
    )
  )

const moveBack = (sql: SqlClient.SqlClient, sink: string, actor: { readonly name: string; readonly role: string }) =>
  sql.withTransaction(
    Effect.gen(function* () {
      const count = yield* decodeCount(yield* sql`SELECT COUNT(*) AS n FROM warden_dead_letters WHERE sink = ${sink}`)
      yield* (yield* AuditStore).record({
        at: yield* Clock.currentTimeMillis,
        actor: actor.name,
        role: actor.role,
        action: "replay",
        detail: { sink, replayed: count }
      })
      if (count === 0) return 0
      yield* sql`INSERT INTO warden_outbox
          (id, sink, source, reference, version, payload, created_at, attempts, last_error, next_attempt_at)
        SELECT id, sink, source, reference, version, payload, failed_at, 0, NULL, 0
        FROM warden_dead_letters WHERE sink = ${sink}
        ON CONFLICT DO NOTHING`
      yield* sql`DELETE FROM warden_dead_letters WHERE sink = ${sink}`
      return count
    })
  )
