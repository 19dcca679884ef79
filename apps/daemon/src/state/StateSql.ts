/**
 * The SQL client of the state store, from where the state lives: what the daemon runs on, and what
 * the CLI commands that read or write the state outside it (`warden state stats`, `warden erase`...)
 * open, without loading the daemon.
 */
import { Effect, Layer, type Redacted } from "effect"
import * as Directories from "./Directories.ts"
import * as SqliteClient from "./SqliteClient.ts"

/** Where the state lives. */
export type StateLocation =
  | { readonly _tag: "sqlite"; readonly filename: string }
  | { readonly _tag: "postgres"; readonly url: Redacted.Redacted<string> }

/** The SQL client of the state store. */
export const sqlLayer = (state: StateLocation) => {
  if (state._tag === "sqlite") {
    // Inside the layer, so a directory that cannot be created fails the start (reported as
    // `state.sqlite: cannot create ...`) rather than throwing while the layer is being described.
    return Layer.unwrap(
      Effect.as(
        state.filename === ":memory:" ? Effect.void : Directories.ensureParentOf(state.filename),
        SqliteClient.layer({ filename: state.filename })
      )
    )
  }
  // Loaded only for PostgreSQL: the client and its driver (`pg`) are ~11 MB of RSS a SQLite daemon,
  // the default, has no use for (docs/BENCHMARKS.md, "Daemon: memory").
  return Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("@effect/sql-pg")),
      ({ PgClient }) => PgClient.layer({ url: state.url })
    )
  )
}
