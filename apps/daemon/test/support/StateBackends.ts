/**
 * The two state backends the store tests run on alike: a fresh SQLite file, or a fresh PostgreSQL
 * database (dropped once the calling file's tests are done).
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { afterAll } from "vitest"
import { type StateLocation, sqlLayer } from "../../src/Daemon.ts"
import * as StateStore from "../../src/state/StateStore.ts"
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

/** What a test on a fresh state is given: every store, and the `SqlClient` under them. */
export type OnState = Layer.Success<typeof StateStore.layer> | Layer.Success<ReturnType<typeof sqlLayer>>

/** Runs `test` on a fresh state made by `fresh` (one of {@link stateBackends}'), migrated, in its own scope. */
export const onFreshState = <A, E>(
  fresh: () => Promise<StateLocation>,
  test: Effect.Effect<A, E, OnState | Scope.Scope>
): Effect.Effect<A, E | Layer.Error<typeof StateStore.layer> | Layer.Error<ReturnType<typeof sqlLayer>>> =>
  Effect.flatMap(Effect.promise(fresh), (state) =>
    test.pipe(Effect.provide(StateStore.layer.pipe(Layer.provideMerge(sqlLayer(state)))), Effect.scoped)
  )
