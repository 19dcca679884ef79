/**
 * The audit of erasures (`warden_erasures`): one row per erasure or retention sweep that changed
 * something, written in the erasure's transaction, and read back newest first.
 */
import { randomUUID } from "node:crypto"
import { Clock, Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"
import { type Counts, ZERO } from "./ErasureCounts.ts"

/** An audit row, as `warden erase --audit` and the admin API show it. */
export interface AuditRecord {
  readonly id: string
  readonly at: string
  readonly actor: string
  readonly selector: string
  /** The reference, or `sha256:<hex>` of an author id, or the retention period. */
  readonly target: string | null
  readonly source: string | null
  readonly counts: Counts
}

/** A row of the audit as stored: the counts as JSON text (a count an older daemon did not keep is 0). */
const AuditRow = Schema.Struct({
  id: Schema.String,
  at: Rows.Int,
  actor: Schema.String,
  selector: Schema.String,
  target: Rows.Text,
  source: Rows.Text,
  counts: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Number))
})
const decodeAudit = Rows.decode("warden_erasures", AuditRow)

/** The audit's statements on the state store's SQL client. */
export const makeAudit = (sql: SqlClient.SqlClient) => {
  const audit = (row: {
    readonly actor: string
    readonly selector: string
    readonly target: string | undefined
    readonly source: string | undefined
    readonly counts: Counts
  }) =>
    Effect.gen(function* () {
      const id = randomUUID()
      const at = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO warden_erasures ${sql.insert({
        id,
        at,
        actor: row.actor,
        selector: row.selector,
        target: row.target ?? null,
        source: row.source ?? null,
        counts: JSON.stringify(row.counts)
      })}`
      return id
    })

  /** The audit of erasures, newest first. */
  const auditLog = (limit: number) =>
    sql`SELECT * FROM warden_erasures ORDER BY at DESC, id LIMIT ${limit}`.pipe(
      Effect.flatMap(decodeAudit),
      Effect.map((rows) =>
        rows.map(
          (r): AuditRecord => ({
            id: r.id,
            at: new Date(r.at).toISOString(),
            actor: r.actor,
            selector: r.selector,
            target: r.target,
            source: r.source,
            counts: { ...ZERO, ...r.counts }
          })
        )
      )
    )

  return { audit, auditLog } as const
}
