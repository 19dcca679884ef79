/**
 * Reads a daemon's SQLite state file directly, also right after a kill -9. Not opened read-only: after
 * a kill the WAL may need recovering, which a read-only connection cannot do ("database is locked");
 * a busy timeout waits out the daemon's own writes.
 */
import { existsSync } from "node:fs"
import { DatabaseSync } from "node:sqlite"

/** Runs a query on the state file; [] when the file or the table does not exist yet. */
export const query = <A = Record<string, unknown>>(
  file: string,
  sql: string,
  ...params: Array<string | number>
): Array<A> => {
  if (!existsSync(file)) return []
  const db = new DatabaseSync(file, { timeout: 10_000 })
  try {
    return db.prepare(sql).all(...params) as Array<A>
  } catch (e) {
    if (String(e).includes("no such table")) return []
    throw e
  } finally {
    db.close()
  }
}
