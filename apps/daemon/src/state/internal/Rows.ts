/**
 * Decoding rows read back from the state database. The drivers differ (SQLite gives numbers,
 * PostgreSQL gives BIGINT columns as strings; JSON columns are text), so every read goes through a
 * row schema instead of casts. A stored row that does not decode is a defect (a row our own
 * migrations shaped, changed behind the daemon's back): it dies with the table, field and problem.
 */
import { Effect, Option, Schema, SchemaTransformation } from "effect"

/** A BIGINT as the PostgreSQL driver may give it, as a number (every count and epoch here fits). */
const NumberFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(
    Schema.Number,
    SchemaTransformation.transform({ decode: (n: bigint) => Number(n), encode: (n: number) => globalThis.BigInt(n) })
  )
)

/** An integer column: a number (SQLite), a bigint or a numeric string (PostgreSQL BIGINT). */
export const Int = Schema.Union([Schema.Number, NumberFromBigInt, Schema.NumberFromString])

/** A nullable column holding JSON text, decoded to the value (`null` stays `null`). */
export const JsonText = Schema.NullOr(Schema.fromJsonString(Schema.Unknown))

/** A nullable text column, as `null` when absent. */
export const Text = Schema.NullOr(Schema.String)

/** Dies naming `table` and the problem: a stored row that does not decode is a defect. */
const orDie =
  (table: string) =>
  <A>(decoded: Effect.Effect<A, Schema.SchemaError>): Effect.Effect<A> =>
    Effect.catch(decoded, (error) =>
      Effect.die(new Error(`a stored row of ${table} does not decode: ${error.message}`))
    )

/** Decodes the rows of a statement on `table`, or dies naming the table and the problem. */
export const decode = <S extends Schema.Decoder<unknown>>(table: string, row: S) => {
  const rows = Schema.decodeUnknownEffect(Schema.Array(row))
  return (input: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<S["Type"]>> =>
    orDie(table)(rows(input) as Effect.Effect<ReadonlyArray<S["Type"]>, Schema.SchemaError>)
}

const decodeCounts = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ n: Int })))

/**
 * Decodes the one row of a `SELECT COUNT(*) AS n` on `table`: the count (0 when no row came back).
 * PostgreSQL gives COUNT as a BIGINT string, SQLite as a number. Cheap to call per statement (the
 * schema is built once), for a table known only then.
 */
export const decodeCount = (table: string) => (input: ReadonlyArray<unknown>) =>
  Effect.map(orDie(table)(decodeCounts(input)), (r) => r[0]?.n ?? 0)

const decodePragmas = Schema.decodeUnknownEffect(Schema.Array(Schema.Record(Schema.String, Int)))

/**
 * Decodes the one row of an integer SQLite `PRAGMA name` (`page_count`, `page_size`, `freelist_count`),
 * whose one column is named after it: the value, or none when it gave no row.
 */
export const decodePragma = (name: string) => (input: ReadonlyArray<unknown>) =>
  Effect.map(orDie(`PRAGMA ${name}`)(decodePragmas(input)), (r) => Option.fromNullishOr(r[0]?.[name]))

/**
 * Decodes the one row of a `SELECT MIN(…) AS at` on `table`: the smallest value, or none when no row
 * matched (SQL answers `NULL`).
 */
export const decodeMin = (table: string) => {
  const rows = decode(table, Schema.Struct({ at: Schema.NullOr(Int) }))
  return (input: ReadonlyArray<unknown>) => Effect.map(rows(input), (r) => Option.fromNullishOr(r[0]?.at))
}
