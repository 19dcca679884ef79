/**
 * Strikes against authors (`warden_strikes`, issue 37): at most one per item (author, source,
 * reference). A verdict the strike policy counts earns one in the record transaction; a moderator's
 * rejection turns it into a `rejection` strike (or adds one) of the policy's rejection weight; an
 * approval or an upheld appeal removes it, kept with who removed it and why for the author's history.
 * A strike keeps the time of its item (`at`): it decays from when the author wrote, not from when a
 * moderator got to it.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rows from "./internal/Rows.ts"

/** A strike to record with its item (the record transaction). */
export interface StrikeRecord {
  readonly authorKey: string
  readonly source: string
  readonly reference: string
  readonly weight: number
  readonly at: number
}

/** A stored strike. */
export interface Strike {
  readonly authorKey: string
  readonly source: string
  readonly reference: string
  /** `verdict` (earned by the verdict) or `rejection` (a moderator rejected the item). */
  readonly kind: string
  readonly weight: number
  readonly at: number
  readonly removedAt: number | null
  readonly removedBy: string | null
  readonly removedReason: string | null
}

const Row = Schema.Struct({
  author_key: Schema.String,
  source: Schema.String,
  reference: Schema.String,
  kind: Schema.String,
  weight: Schema.Union([Schema.Number, Schema.NumberFromString]),
  at: Rows.Int,
  removed_at: Schema.NullOr(Rows.Int),
  removed_by: Rows.Text,
  removed_reason: Rows.Text
})
const decodeRows = Rows.decode("warden_strikes", Row)
const toStrike = (r: typeof Row.Type): Strike => ({
  authorKey: r.author_key,
  source: r.source,
  reference: r.reference,
  kind: r.kind,
  weight: r.weight,
  at: r.at,
  removedAt: r.removed_at,
  removedBy: r.removed_by,
  removedReason: r.removed_reason
})

/** The strike rows of a batch's new items (what ItemStore.recordItems inserts, ON CONFLICT DO NOTHING). */
export const rowsOf = (strikes: ReadonlyArray<StrikeRecord>) =>
  strikes.map((s) => ({
    author_key: s.authorKey,
    source: s.source,
    reference: s.reference,
    kind: "verdict",
    weight: s.weight,
    at: s.at,
    removed_at: null,
    removed_by: null,
    removed_reason: null
  }))

/** The strikes. */
export interface StrikeStoreShape {
  /** The live strikes of some authors: not removed, recorded at or after `since`. */
  readonly live: (
    authorKeys: ReadonlyArray<string>,
    since: number
  ) => Effect.Effect<ReadonlyArray<Strike>, SqlError.SqlError>
  /** Every strike of some authors, removed ones included (a backtest reads them as they stood then). */
  readonly ofAuthors: (authorKeys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Strike>, SqlError.SqlError>
  /** Every strike of an author, removed ones included, newest first. */
  readonly ofAuthor: (authorKey: string) => Effect.Effect<ReadonlyArray<Strike>, SqlError.SqlError>
  /** A moderator rejected the item: its strike becomes (or is added as) a `rejection` of `weight`, in force. */
  readonly reject: (strike: StrikeRecord) => Effect.Effect<void, SqlError.SqlError>
  /** The item's strike is removed (approved, appeal upheld); returns how many were in force. */
  readonly remove: (options: {
    readonly source: string
    readonly reference: string
    readonly at: number
    readonly by: string
    readonly reason: string
  }) => Effect.Effect<number, SqlError.SqlError>
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const select = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
    Effect.map(Effect.flatMap(statement, decodeRows), (rows) => rows.map(toStrike))
  return StrikeStore.of({
    live: Effect.fn("StrikeStore.live")((authorKeys: ReadonlyArray<string>, since: number) =>
      authorKeys.length === 0
        ? Effect.succeed([])
        : select(sql`SELECT * FROM warden_strikes WHERE ${sql.in("author_key", authorKeys)}
            AND removed_at IS NULL AND at >= ${since}`)
    ),
    ofAuthors: Effect.fn("StrikeStore.ofAuthors")(function* (authorKeys: ReadonlyArray<string>) {
      const out: Array<Strike> = []
      for (let i = 0; i < authorKeys.length; i += 200)
        out.push(
          ...(yield* select(
            sql`SELECT * FROM warden_strikes WHERE ${sql.in("author_key", authorKeys.slice(i, i + 200))}`
          ))
        )
      return out
    }),
    ofAuthor: Effect.fn("StrikeStore.ofAuthor")((authorKey: string) =>
      select(sql`SELECT * FROM warden_strikes WHERE author_key = ${authorKey} ORDER BY at DESC, source, reference`)
    ),
    reject: Effect.fn("StrikeStore.reject")(function* (s: StrikeRecord) {
      yield* sql`INSERT INTO warden_strikes ${sql.insert({ ...rowsOf([s])[0]!, kind: "rejection" })}
        ON CONFLICT (author_key, source, reference) DO UPDATE SET kind = 'rejection', weight = ${s.weight},
        removed_at = NULL, removed_by = NULL, removed_reason = NULL`
    }),
    remove: Effect.fn("StrikeStore.remove")(function* (options: {
      readonly source: string
      readonly reference: string
      readonly at: number
      readonly by: string
      readonly reason: string
    }) {
      const rows = yield* sql`UPDATE warden_strikes SET removed_at = ${options.at}, removed_by = ${options.by},
        removed_reason = ${options.reason}
        WHERE source = ${options.source} AND reference = ${options.reference} AND removed_at IS NULL RETURNING 1 AS one`
      return rows.length
    })
  })
})

/** The strikes. */
export class StrikeStore extends Context.Service<StrikeStore, StrikeStoreShape>()("@warden/daemon/StrikeStore") {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(StrikeStore, make)
}
