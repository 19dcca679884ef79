/**
 * The parts of a stored source event (`warden_items.event`) the review queue and an author's history
 * show: content, permalink, language, author, post. Read leniently, part by part: an erased item's
 * event (`{ reference, erased: true }`) or one an older connector emitted has fewer parts, never a
 * failure.
 */
import { Option, Schema } from "effect"

const Content = Schema.Struct({
  type: Schema.String,
  text: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  username: Schema.optionalKey(Schema.String)
})
const Author = Schema.Struct({
  identifier: Schema.optionalKey(Schema.String),
  username: Schema.optionalKey(Schema.String),
  permalink: Schema.optionalKey(Schema.String)
})
const Post = Schema.Struct({ title: Schema.String, permalink: Schema.optionalKey(Schema.String) })

const part = <S extends Schema.Codec<any, any, never, never>>(schema: S) => {
  const decode = Schema.decodeUnknownOption(schema)
  return (value: unknown): S["Type"] | undefined => Option.getOrUndefined(decode(value))
}
const content = part(Content)
const author = part(Author)
const post = part(Post)
const text = part(Schema.String)

/** What the console shows of a stored event. */
export interface Shown {
  readonly content: typeof Content.Type | undefined
  readonly permalink: string | undefined
  readonly language: string | undefined
  readonly author: typeof Author.Type | undefined
  readonly post: typeof Post.Type | undefined
}

/** The parts of a stored event (decoded JSON). */
export const read = (event: unknown): Shown => {
  const e = (typeof event === "object" && event !== null ? event : {}) as Record<string, unknown>
  return {
    content: content(e.content),
    permalink: text(e.permalink),
    language: text(e.language),
    author: author(e.author),
    post: post(e.post)
  }
}
