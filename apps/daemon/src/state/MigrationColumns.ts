/**
 * Whether a table has a column: a migration that adds one checks it first, so it runs again on a state
 * that has it already (0011, 0017).
 */
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** Column names of warden_items (SQLite's table_info, PostgreSQL's catalogue). */
const decodeColumns = Rows.decode("a table's columns", Schema.Struct({ name: Schema.String }))

/** Whether `table` has a column `name` (a migration that adds one runs again on a state that has it). */
export const hasColumn = (table: string, name: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const listed = sql.onDialectOrElse({
      pg: () => sql`SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ${table}`,
      orElse: () => sql`SELECT name FROM pragma_table_info(${table})`
    })
    return (yield* decodeColumns(yield* listed)).some((c) => c.name === name)
  })
