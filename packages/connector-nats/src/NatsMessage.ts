/**
 * The message format a NATS source reads: each message's body is one item as JSON, the item shape the
 * analyze API takes plus the publisher's own `reference`:
 *
 * ```json
 * { "reference": "c-1042", "text": "the comment", "publishedAt": "2026-11-28T10:00:00Z",
 *   "author": { "identifier": "u-7", "username": "ada" }, "post": { "title": "Release notes" } }
 * ```
 *
 * The content is the first of `text`, `imageUrl`, `imageData` (base64) and `username` present.
 *
 * @since 0.1.0
 */
import { SourceEvent } from "@warden/connector"
import { Exit, Schema } from "effect"
import * as NatsCheckpoint from "./NatsCheckpoint.ts"

/** One message's body, decoded. */
export const Message = Schema.Struct({
  reference: Schema.String.check(Schema.isNonEmpty()).annotate({
    description: "The item's id in the publisher's system; the event's reference is nats:<stream>/<reference>"
  }),
  text: Schema.optionalKey(Schema.String),
  imageUrl: Schema.optionalKey(Schema.String),
  imageData: Schema.optionalKey(Schema.String),
  username: Schema.optionalKey(Schema.String),
  publishedAt: Schema.optionalKey(Schema.String),
  permalink: Schema.optionalKey(Schema.String),
  language: Schema.optionalKey(Schema.String),
  author: Schema.optionalKey(SourceEvent.Author),
  post: Schema.optionalKey(SourceEvent.Post)
}).check(
  Schema.makeFilter(
    (m) =>
      m.text !== undefined ||
      m.imageUrl !== undefined ||
      m.imageData !== undefined ||
      m.username !== undefined ||
      "one of text, imageUrl, imageData or username is required"
  )
)
/** @see {@link Message} */
export type Message = typeof Message.Type

const decodeMessage = Schema.decodeUnknownExit(Message)

/** The reference of a message's item in stream `stream`. */
export const reference = (stream: string, ref: string): string => `nats:${stream}/${ref}`

const contentOf = (m: Message): SourceEvent.Content | undefined =>
  m.text !== undefined
    ? { type: "text", text: m.text }
    : m.imageUrl !== undefined
      ? { type: "image", url: m.imageUrl }
      : m.imageData !== undefined
        ? { type: "image", data: m.imageData }
        : m.username !== undefined
          ? { type: "username", username: m.username }
          : undefined

/**
 * The upsert of a message, field for field. A message that failed to decode comes here too, its
 * fields as they came, so that the daemon's own check of the event (`SourceEvent.problems`) names
 * what is wrong: a reference that is not a non-empty string is passed on as it is (not prefixed),
 * a missing content stays missing.
 */
const toUpsert = (stream: string, seq: number, m: Message): SourceEvent.Upsert => {
  const content = contentOf(m)
  const event = {
    kind: "upsert" as const,
    reference: typeof m.reference === "string" && m.reference !== "" ? reference(stream, m.reference) : m.reference,
    checkpoint: NatsCheckpoint.at(seq),
    ...(content === undefined ? {} : { content }),
    ...(m.publishedAt === undefined ? {} : { publishedAt: m.publishedAt }),
    ...(m.permalink === undefined ? {} : { permalink: m.permalink }),
    ...(m.language === undefined ? {} : { language: m.language }),
    ...(m.author === undefined ? {} : { author: m.author }),
    ...(m.post === undefined ? {} : { post: m.post })
  }
  // Without content only for a message that failed to decode: the daemon dead-letters it ("content").
  return event as SourceEvent.Upsert
}

/** What a message came to: an event to hold until acknowledged, or one the daemon dead-letters. */
export type Decoded =
  | { readonly _tag: "Event"; readonly event: SourceEvent.Upsert }
  | {
      readonly _tag: "Malformed"
      readonly event: SourceEvent.Upsert
      readonly problems: ReadonlyArray<SourceEvent.Problem>
    }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The event of the message at stream sequence `seq` of `stream` whose body is `body`. Whether it is
 * malformed is the daemon's judgement (`SourceEvent.problems`): a body that is not a JSON object has
 * no reference and no content, a reference over 256 characters with its prefix is too long, a field
 * of the wrong type is named (`content.text`, `author.username`).
 */
export const decode = (stream: string, seq: number, body: string): Decoded => {
  const json = parseJson(body)
  const decoded = decodeMessage(json)
  // A failed decode: the fields as they came (an object's), for the daemon to name what is wrong.
  const fields = Exit.isSuccess(decoded) ? decoded.value : ((isRecord(json) ? json : {}) as Message)
  const event = toUpsert(stream, seq, fields)
  const problems = SourceEvent.problems(event)
  return problems.length === 0 ? { _tag: "Event", event } : { _tag: "Malformed", event, problems }
}
