/**
 * The decision search's view of the content sent: the text without the characters that hide a word
 * from the eye and from a search alike (zero-width, bidirectional controls: `HiddenCharacters`), so
 * "idiot" finds "id\u200Biot". The query is stripped the same way (`DecisionStore`).
 *
 * On SQLite a function of the connection, `warden_search_text(text)`, answers NULL when nothing is
 * hidden (the common case: NULL costs SQLite almost nothing to take back, a string ~0.3 µs per row),
 * so the column is read as `COALESCE(warden_search_text(request), request)`. On PostgreSQL,
 * `regexp_replace` with the same characters.
 */
import type { DatabaseSync } from "node:sqlite"
import type { SqlClient } from "effect/sql"
import { hasIgnored, SEARCH_IGNORED, withoutIgnored } from "../../domain/HiddenCharacters.ts"

const FUNCTION = "warden_search_text"

/** Adds `warden_search_text` to a SQLite connection. */
export const register = (db: DatabaseSync): void =>
  db.function(FUNCTION, { deterministic: true }, (text) =>
    typeof text === "string" && hasIgnored(text) ? withoutIgnored(text) : null
  )

/** `column` as the search reads it, on the connection's dialect. */
export const column = (sql: SqlClient.SqlClient, name: string) =>
  sql.onDialectOrElse({
    pg: () => sql`regexp_replace(${sql(name)}, ${`[${SEARCH_IGNORED.join("")}]`}, '', 'g')`,
    orElse: () => sql`COALESCE(${sql.literal(FUNCTION)}(${sql(name)}), ${sql(name)})`
  })
