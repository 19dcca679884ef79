/**
 * Moderators added from the command line (`warden moderator add`, `warden_moderators`): a name, a role
 * and the SHA-256 of their token (the token itself is printed once and never stored). Those of the
 * config file are not here: they live in memory (`Moderators`). A disabled moderator is kept (the audit
 * names them) and signs in no more.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** A stored moderator. */
export interface StoredModerator {
  readonly name: string
  readonly role: string
  /** SHA-256 of the token, hex. */
  readonly tokenHash: string
  readonly createdAt: number
  readonly createdBy: string
  readonly disabledAt: number | null
}

const Row = Schema.Struct({
  name: Schema.String,
  role: Schema.String,
  token_hash: Schema.String,
  created_at: Rows.Int,
  created_by: Schema.String,
  disabled_at: Schema.NullOr(Rows.Int)
})
const decodeRows = Rows.decode("warden_moderators", Row)
const toModerator = (r: typeof Row.Type): StoredModerator => ({
  name: r.name,
  role: r.role,
  tokenHash: r.token_hash,
  createdAt: r.created_at,
  createdBy: r.created_by,
  disabledAt: r.disabled_at
})

/** The stored moderators. */
export interface ModeratorStoreShape {
  /**
   * Adds a moderator; `false` when one of that name exists (a disabled one included: a name stays
   * bound to who held it, for the audit).
   */
  readonly add: (moderator: Omit<StoredModerator, "disabledAt">) => Effect.Effect<boolean, SqlError.SqlError>
  /** Every stored moderator, by name. */
  readonly list: Effect.Effect<ReadonlyArray<StoredModerator>, SqlError.SqlError>
  /** Disables a moderator; `false` when there is no active one of that name. */
  readonly disable: (name: string, at: number) => Effect.Effect<boolean, SqlError.SqlError>
  /** The active moderators (what sign-in compares a token with). */
  readonly active: Effect.Effect<ReadonlyArray<StoredModerator>, SqlError.SqlError>
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return ModeratorStore.of({
    add: Effect.fn("ModeratorStore.add")(function* (m: Omit<StoredModerator, "disabledAt">) {
      const rows = yield* sql`INSERT INTO warden_moderators ${sql.insert({
        name: m.name,
        role: m.role,
        token_hash: m.tokenHash,
        created_at: m.createdAt,
        created_by: m.createdBy,
        disabled_at: null
      })} ON CONFLICT DO NOTHING RETURNING name`
      return rows.length > 0
    }),
    list: Effect.map(Effect.flatMap(sql`SELECT * FROM warden_moderators ORDER BY name`, decodeRows), (rows) =>
      rows.map(toModerator)
    ).pipe(Effect.withSpan("ModeratorStore.list")),
    disable: Effect.fn("ModeratorStore.disable")(function* (name: string, at: number) {
      const rows = yield* sql`UPDATE warden_moderators SET disabled_at = ${at}
        WHERE name = ${name} AND disabled_at IS NULL RETURNING name`
      return rows.length > 0
    }),
    active: Effect.map(
      Effect.flatMap(sql`SELECT * FROM warden_moderators WHERE disabled_at IS NULL`, decodeRows),
      (rows) => rows.map(toModerator)
    )
  })
})

/** The stored moderators. */
export class ModeratorStore extends Context.Service<ModeratorStore, ModeratorStoreShape>()(
  "@warden/daemon/ModeratorStore"
) {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(ModeratorStore, make)
}
