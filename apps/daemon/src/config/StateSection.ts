/**
 * The `state` section of `warden.yaml` (a SQLite file or a PostgreSQL URL, the data directory) and
 * the decoded store, with the defaults relative to the config file's directory.
 */
import { Schema } from "effect"
import { ConfigSecret } from "./ConfigSecret.ts"

/** The `state` section as written: exactly one of `sqlite` (a file path) or `postgres` (a URL, secret). */
export const StateSection = Schema.Struct({
  dir: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  sqlite: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  postgres: Schema.optionalKey(ConfigSecret)
}).check(
  Schema.makeFilter(
    (s) => !(s.sqlite !== undefined && s.postgres !== undefined) || "set exactly one of sqlite, postgres",
    {
      toJsonSchema: () => ({ not: { required: ["sqlite", "postgres"] } })
    }
  )
)

/** Where the daemon keeps its state, decoded. `filename` is absolute (relative paths are against the config file's directory). */
export type StateStore =
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: import("effect").Redacted.Redacted<string> }

/** The default SQLite file, relative to the config file's directory. */
export const DEFAULT_SQLITE = ".warden/state.db"

/**
 * The data directory when neither `state.dir` nor `WARDEN_STATE_DIR` names one (relative to the
 * config file's directory): the SQLite file and a generated admin token live there, so the config
 * itself can sit on a read-only mount.
 */
export const DEFAULT_STATE_DIR = ".warden"
