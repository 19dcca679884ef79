/**
 * The cursor of `GET /api/decisions`: where a page ended (its last row's sort key), opaque to the
 * client (base64url JSON). A cursor that does not decode is a 400 naming `cursor`.
 */
import { Effect, Schema } from "effect"
import type { StoredDecision } from "../domain/Decision.ts"
import type { DecisionPosition } from "../state/DecisionStore.ts"
import { type AdminRefused, badParameter } from "./AdminError.ts"

const Position = Schema.Tuple([Schema.Int, Schema.String, Schema.String, Schema.Int])
const decodePosition = Schema.decodeUnknownOption(Schema.fromJsonString(Position))

/** The cursor after `last`. */
export const encode = (last: StoredDecision): string =>
  Buffer.from(JSON.stringify([last.createdAt, last.source, last.reference, last.version])).toString("base64url")

/** The position a cursor names (undefined: the first page). */
export const decode = (cursor: string | undefined): Effect.Effect<DecisionPosition | undefined, AdminRefused> => {
  if (cursor === undefined) return Effect.succeed(undefined)
  const decoded = /^[A-Za-z0-9_-]+$/u.test(cursor)
    ? decodePosition(Buffer.from(cursor, "base64url").toString("utf8"))
    : undefined
  if (decoded === undefined || decoded._tag === "None")
    return Effect.fail(badParameter("cursor", "is not a cursor this API gave (pass nextCursor back unchanged)"))
  const [createdAt, source, reference, version] = decoded.value
  return Effect.succeed({ createdAt, source, reference, version })
}
