/**
 * One posted item, the analyze request's own fields plus the client's `reference`:
 *
 * ```json
 * { "reference": "c-1042", "text": "the comment", "publishedAt": "2026-11-28T10:00:00Z",
 *   "author": { "identifier": "u-7", "username": "ada" }, "post": { "title": "Release notes" } }
 * ```
 *
 * Exactly one of `text`, `imageUrl`, `imageData` (base64) and `username` is the content. Every problem
 * of an item is named by its field (the API's `fieldViolations`), and an item's problems never refuse
 * its neighbours. The reference is kept as the client wrote it: it is the client's id, which a check
 * answers with and feedback names.
 *
 * @since 0.1.0
 */
import type { PushHost } from "@warden/connector"
import { SourceEvent } from "@warden/connector"
import { Base64, FieldViolations, IsoDateTime, LanguageCode, Uri } from "@warden/core/client"
import { Exit, Schema } from "effect"
import type { FieldViolation } from "./Envelope.ts"

const described = <S extends Schema.Top>(schema: S, description: string): S["Rebuild"] =>
  schema.annotate({ description })

/** The posted item. */
export const Item = Schema.Struct({
  reference: described(
    Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(SourceEvent.maxReferenceLength)),
    "The item's id in your system (at most 256 characters): a check answers with it, feedback names it"
  ),
  text: Schema.optionalKey(described(Schema.String, "Text to analyse")),
  imageUrl: Schema.optionalKey(described(Uri, "An image to analyse, by URL")),
  imageData: Schema.optionalKey(described(Base64, "An image to analyse, as base64 bytes")),
  username: Schema.optionalKey(described(Schema.String.check(Schema.isNonEmpty()), "A username to analyse")),
  publishedAt: Schema.optionalKey(IsoDateTime),
  permalink: Schema.optionalKey(Uri),
  language: Schema.optionalKey(LanguageCode),
  author: Schema.optionalKey(SourceEvent.Author),
  post: Schema.optionalKey(SourceEvent.Post)
}).annotate({ identifier: "Item", description: "One item: its reference, exactly one content field, its context" })
/** @see {@link Item} */
export type Item = typeof Item.Type

const decodeItem = Schema.decodeUnknownExit(Item, { errors: "all", onExcessProperty: "error" })

const CONTENT = ["text", "imageUrl", "imageData", "username"] as const

/** The pushed item of a decoded one. */
const toPushItem = (item: Item): PushHost.PushItem => {
  const { reference, text, imageUrl, imageData, username, ...context } = item
  const content: SourceEvent.Content =
    text !== undefined
      ? { type: "text", text }
      : imageUrl !== undefined
        ? { type: "image", url: imageUrl }
        : imageData !== undefined
          ? { type: "image", data: imageData }
          : { type: "username", username: username ?? "" }
  return { reference, content, ...context }
}

/** An item decoded, or every problem of it, each field prefixed with `at` (`items[3].`). */
export type Decoded =
  | { readonly _tag: "Item"; readonly item: PushHost.PushItem }
  | {
      readonly _tag: "Invalid"
      readonly reference: string | undefined
      readonly violations: ReadonlyArray<FieldViolation>
    }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Decodes one posted item; `at` prefixes the fields named (`items[3].`, or `""` for a lone item). */
export const decode = (input: unknown, at: string): Decoded => {
  const reference = isRecord(input) && typeof input.reference === "string" ? input.reference : undefined
  const violations: Array<FieldViolation> = []
  const exit = decodeItem(input)
  if (Exit.isFailure(exit)) {
    const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
    const found = error === undefined ? [] : FieldViolations.fromSchemaError(error)
    for (const v of found)
      violations.push({ field: `${at}${v.field}`.replace(/\.$/u, "") || "(body)", message: v.message })
  }
  const given = isRecord(input) ? CONTENT.filter((k) => input[k] !== undefined) : []
  if (isRecord(input) && given.length !== 1)
    violations.push({
      field: given.length === 0 ? `${at}text` : `${at}${given[1]}`,
      message:
        given.length === 0
          ? "one of text, imageUrl, imageData or username is required"
          : `only one of text, imageUrl, imageData or username may be given (got ${given.join(", ")})`
    })
  if (violations.length > 0 || Exit.isFailure(exit)) return { _tag: "Invalid", reference, violations }
  return { _tag: "Item", item: toPushItem(exit.value) }
}
