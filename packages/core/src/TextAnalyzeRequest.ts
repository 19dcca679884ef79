/**
 * The body of `POST /analyze/v1/text` (also embedded, unchanged, in text feedback), with its
 * `Post` and `Author` objects. Every rule of the spec's tables is checked on decode.
 */
import * as Schema from "effect/Schema"
import { POST_TITLE_MAX_LENGTH, TEXT_MAX_LENGTH, USERNAME_MAX_LENGTH } from "./Limits.ts"
import { ChannelId, CountryCode, IsoDateTime, LanguageCode, maxLengthString, Reference, Uri } from "./Primitives.ts"
import { TextResellerFields } from "./ResellerFields.ts"

/** Metadata of the post the content belongs to. */
export const Post = Schema.Struct({
  title: maxLengthString(POST_TITLE_MAX_LENGTH),
  reference: Schema.optionalKey(Reference),
  publishedAt: Schema.optionalKey(IsoDateTime),
  permalink: Schema.optionalKey(Uri),
  countryCode: Schema.optionalKey(CountryCode)
}).annotate({ identifier: "Post", description: "Metadata of the post the content belongs to" })
export type Post = typeof Post.Type

/** Metadata of the content's author. */
export const Author = Schema.Struct({
  username: maxLengthString(USERNAME_MAX_LENGTH),
  reference: Schema.optionalKey(Reference),
  permalink: Schema.optionalKey(Uri),
  profilePictureUrl: Schema.optionalKey(Uri),
  countryCode: Schema.optionalKey(CountryCode)
}).annotate({ identifier: "Author", description: "Metadata of the content's author" })
export type Author = typeof Author.Type

/** The fields of a text analyze request, without the reseller fields. */
export const TextAnalyzeFields = {
  channelId: ChannelId,
  text: maxLengthString(TEXT_MAX_LENGTH),
  publishedAt: Schema.optionalKey(IsoDateTime),
  reference: Schema.optionalKey(Reference),
  permalink: Schema.optionalKey(Uri),
  language: Schema.optionalKey(LanguageCode),
  post: Schema.optionalKey(Post),
  author: Schema.optionalKey(Author)
} as const

/** Body of `POST /analyze/v1/text`: the text and its context, plus the reseller fields that apply. */
export const TextAnalyzeRequest = Schema.Struct({ ...TextAnalyzeFields, ...TextResellerFields }).annotate({
  identifier: "TextAnalyzeRequest",
  description: "Body of POST /analyze/v1/text"
})
export type TextAnalyzeRequest = typeof TextAnalyzeRequest.Type
