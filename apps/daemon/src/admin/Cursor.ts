/**
 * The cursors of the admin API's keyset-paged lists (the review queue, the audit, an author's items):
 * where a page ended (its last row's sort key), opaque to the client (base64url JSON of a tuple the
 * list's schema checks). A cursor that does not decode is a 400 naming `cursor`.
 */
import { Effect, Schema } from "effect"
import { type AdminRefused, badParameter } from "./AdminError.ts"

/** A cursor of positions of `schema`. */
export const make = <S extends Schema.Codec<any, any, never, never>>(schema: S) => {
  const decodePosition = Schema.decodeUnknownOption(Schema.fromJsonString(schema))
  const encodePosition = Schema.encodeSync(schema)
  return {
    /** The cursor after a page ending at `position`. */
    encode: (position: S["Type"]): string =>
      Buffer.from(JSON.stringify(encodePosition(position))).toString("base64url"),
    /** The position a cursor names (undefined: the first page). */
    decode: (cursor: string | undefined): Effect.Effect<S["Type"] | undefined, AdminRefused> => {
      if (cursor === undefined) return Effect.succeed(undefined)
      const decoded = /^[A-Za-z0-9_-]+$/u.test(cursor)
        ? decodePosition(Buffer.from(cursor, "base64url").toString("utf8"))
        : undefined
      return decoded === undefined || decoded._tag === "None"
        ? Effect.fail(badParameter("cursor", "is not a cursor this API gave (pass nextCursor back unchanged)"))
        : Effect.succeed(decoded.value)
    }
  }
}
