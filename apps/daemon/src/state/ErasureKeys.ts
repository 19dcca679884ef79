/**
 * The item versions an erasure selector names, and the rows of the push sources' intake it names:
 * by reference, author id (with rows recorded before the author column, found by their event), author
 * key or username.
 */
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as Like from "./internal/Like.ts"
import * as Rows from "./internal/Rows.ts"
import { partsOf } from "./AuthorStore.ts"
import type { Selector } from "./ErasureSelector.ts"
import { authorOf } from "./ItemAuthor.ts"

/** An item version, as read back (`version` a number on both dialects). */
const KeyRow = Schema.Struct({ source: Schema.String, reference: Schema.String, version: Rows.Int })
export type Key = typeof KeyRow.Type
export const decodeKeys = Rows.decode("warden_items", KeyRow)
/** An item version recorded before the author column, with its source event (JSON text). */
const decodeKeyEvents = Rows.decode(
  "warden_items",
  KeyRow.mapFields((fields) => ({ ...fields, event: Schema.String }))
)

/** The selector look-ups on the state store's SQL client. */
export const makeSelectorQueries = (sql: SqlClient.SqlClient) => {
  /** The rows of the push sources' intake a selector names (by reference, author id or username). */
  const intakeOf = (selector: Selector) => {
    switch (selector._tag) {
      case "Reference":
        return selector.source === undefined
          ? sql`reference = ${selector.reference}`
          : sql`reference = ${selector.reference} AND source = ${selector.source}`
      case "Author":
        return selector.source === undefined
          ? sql`author = ${selector.author}`
          : sql`author = ${selector.author} AND source = ${selector.source}`
      case "AuthorKey":
        return selector.sources.length === 0
          ? sql`1 = 0`
          : sql`author = ${partsOf(selector.key).identifier} AND ${sql.in("source", selector.sources)}`
      case "Username":
        return sql`source = ${selector.source} AND author_name = ${selector.username}`
    }
  }

  /** The item versions a selector names (erased ones included: erasing again is a no-op, not an error). */
  const keysOf = (selector: Selector) =>
    Effect.gen(function* () {
      const only =
        selector._tag === "AuthorKey" || selector._tag === "Username" || selector.source === undefined
          ? sql``
          : sql`AND source = ${selector.source}`
      if (selector._tag === "Reference") {
        return yield* decodeKeys(
          yield* sql`SELECT source, reference, version FROM warden_items
            WHERE reference = ${selector.reference} ${only} ORDER BY source, version`
        )
      }
      if (selector._tag === "Username") {
        return yield* decodeKeys(
          yield* sql`SELECT source, reference, version FROM warden_items
            WHERE source = ${selector.source} AND author_name = ${selector.username}`
        )
      }
      if (selector._tag === "AuthorKey") {
        const byKey = yield* decodeKeys(
          yield* sql`SELECT source, reference, version FROM warden_items WHERE author_key = ${selector.key}`
        )
        // Rows recorded before author keys (and erased-and-kept ones): by the identifier in the platform's sources.
        const { identifier } = partsOf(selector.key)
        const older =
          selector.sources.length === 0
            ? []
            : yield* decodeKeys(
                yield* sql`SELECT source, reference, version FROM warden_items
                  WHERE author = ${identifier} AND author_key IS NULL AND ${sql.in("source", selector.sources)}`
              )
        return [...byKey, ...older]
      }
      const indexed = yield* decodeKeys(
        yield* sql`SELECT source, reference, version FROM warden_items
          WHERE author = ${selector.author} ${only}`
      )
      // Rows recorded before the author column existed: found by their event, confirmed by parsing it.
      const pattern = Like.containing(JSON.stringify(selector.author))
      const older = yield* decodeKeyEvents(
        yield* sql`SELECT source, reference, version, event FROM warden_items
          WHERE author IS NULL AND erased_at IS NULL AND event LIKE ${pattern} ESCAPE '\\' ${only}`
      )
      return [
        ...indexed,
        ...older.filter((r) => authorOf(r.event) === selector.author).map(({ event: _, ...key }) => key)
      ]
    })

  return { intakeOf, keysOf } as const
}
