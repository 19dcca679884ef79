/**
 * The two state backends the store tests run on alike: a fresh SQLite file, or a fresh PostgreSQL
 * database (dropped once the calling file's tests are done).
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Redacted } from "effect"
import { afterAll } from "vitest"
import type { StateLocation } from "../../src/Daemon.ts"
import { freshDatabase } from "./Postgres.ts"

/** Each backend's name and a function making a fresh state on it; call at a test file's top level. */
export const stateBackends = (): ReadonlyArray<readonly [name: string, fresh: () => Promise<StateLocation>]> => {
  const drops: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const drop of drops) await drop()
  })
  return [
    ["sqlite", async () => ({ _tag: "sqlite", filename: join(mkdtempSync(join(tmpdir(), "warden-state-")), "s.db") })],
    [
      "postgres",
      async () => {
        const db = await freshDatabase()
        drops.push(db.drop)
        return { _tag: "postgres", url: Redacted.make(db.url) }
      }
    ]
  ]
}
