/**
 * The state database a config's `state` section names, for the CLI commands that read or write it
 * outside a running daemon (`warden reanalyse`, `warden state stats`, `warden source checkpoint`).
 */
import { Layer } from "effect"
import type { StateStore as StateConfig } from "../config/StateSection.ts"
import { sqlLayer } from "../state/StateSql.ts"
import * as StateStore from "../state/StateStore.ts"

/** The SQL client of the config's state database. */
export const sql = (state: StateConfig) =>
  sqlLayer(
    state._tag === "Sqlite" ? { _tag: "sqlite", filename: state.filename } : { _tag: "postgres", url: state.url }
  )

/** The state store (migrated) on the config's state database. */
export const store = (state: StateConfig) => StateStore.layer.pipe(Layer.provide(sql(state)))
