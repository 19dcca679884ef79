/**
 * What every sink receives for an item version: enough to act on and to be idempotent
 * (`source` + `reference` + `version` identify it), and where the item is (its locator: permalink,
 * post, author, the platform's ids), so a receiver knows which comment it is without calling Warden's
 * admin API. Never the API key; the content text only for a sink whose entry says `content: true`.
 *
 * Published as a JSON Schema (`schema/verdict-record.schema.json`, generated from this schema by
 * VerdictRecordJsonSchema.ts). Every field added since the first release is optional: a record queued
 * in the outbox by an older daemon still decodes.
 */
import type { SourceEvent } from "@warden/connector"
import { Schema } from "effect"
import { ItemStatus, Mode } from "./ItemVersion.ts"
import { type Outcome, unrecognisedError } from "./Outcome.ts"
import { Verdict } from "./Verdict.ts"

/** A time as the records write it: ISO 8601 in UTC, as `Date.prototype.toISOString` gives it. */
export const IsoTime = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/u, {
    message: "must be an ISO 8601 time in UTC (2026-11-28T20:34:18.000Z)"
  })
).annotate({ format: "date-time" })

/** The time a connector gave (`publishedAt`: RFC 3339 on most platforms, RFC 822 in RSS) as an ISO time, if it is one. */
export const isoTimeOf = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const millis = Date.parse(value)
  return Number.isNaN(millis) ? undefined : new Date(millis).toISOString()
}

/** Who wrote the item, as the connector names them. */
export const RecordAuthor = Schema.Struct({
  /** The author's stable identifier on the platform (Discord user id, YouTube channel id, an RSS author's URI...). */
  identifier: Schema.optionalKey(Schema.String),
  username: Schema.String,
  /** `<platform>:<identifier>`: the same person across the platform's sources (GET /api/authors/{key}). */
  key: Schema.optionalKey(Schema.String),
  /** The author's profile page, where the platform has one. */
  permalink: Schema.optionalKey(Schema.String)
}).annotate({ description: "Who wrote the item (erased with the item's content)" })

/** The post (article, video, thread) the item belongs to. */
export const RecordPost = Schema.Struct({
  title: Schema.String,
  permalink: Schema.optionalKey(Schema.String),
  /** The post's own reference on its platform (a YouTube video id, a Discord thread's first message). */
  reference: Schema.optionalKey(Schema.String),
  publishedAt: Schema.optionalKey(IsoTime)
})

/** A verdict as the sinks see it. */
export const VerdictRecord = Schema.Struct({
  source: Schema.String.annotate({ description: "The source's id in the daemon's config" }),
  reference: Schema.String.annotate({
    description: "The item's stable reference within its source (source + reference + version identify a record)"
  }),
  version: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
    description: "The item's content version: 1, then one more for each edit analysed again"
  }),
  status: ItemStatus,
  contentType: Schema.String,
  mode: Mode,
  verdict: Schema.optionalKey(Verdict),
  error: Schema.optionalKey(Schema.Struct({ code: Schema.String, message: Schema.String })),
  /** The platform of the source (`discord`, `youtube`, `rss`...): its connector's type. */
  platform: Schema.optionalKey(
    Schema.String.annotate({ description: "The platform of the source (discord, youtube, rss...)" })
  ),
  /** The item's own link. */
  permalink: Schema.optionalKey(Schema.String.annotate({ description: "The item's own link" })),
  /** When the item was published, as the connector says. */
  publishedAt: Schema.optionalKey(IsoTime.annotate({ description: "When the item was published" })),
  post: Schema.optionalKey(RecordPost),
  author: Schema.optionalKey(RecordAuthor),
  /** The platform's ids of the item: `guild`, `channel`, `message` on Discord; `video`, `comment` on YouTube. */
  platformIds: Schema.optionalKey(
    Schema.Record(Schema.String, Schema.String).annotate({
      description: "The platform's ids of the item: guild, channel, message on Discord; video, comment on YouTube"
    })
  ),
  /** The text analysed: only for a sink whose entry says `content: true`. */
  text: Schema.optionalKey(
    Schema.String.annotate({ description: "The text analysed: only when the sink's entry says content: true" })
  ),
  segments: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  analysedAt: IsoTime.annotate({ description: "When the verdict was recorded" }),
  dryRun: Schema.Boolean.annotate({ description: "Whether the actions were only recorded, not run" }),
  /** The rule that matched, if any. */
  rule: Schema.optionalKey(Schema.String),
  /** The actions decided (run, or only recorded in a dry run). */
  actions: Schema.optionalKey(Schema.Array(Schema.String))
})
/** @see {@link VerdictRecord} */
export type VerdictRecord = typeof VerdictRecord.Type

/** Where an item is, from its source event: what a record carries besides the verdict. */
export const locatorOf = (
  event: Pick<SourceEvent.Upsert, "permalink" | "publishedAt" | "author" | "post" | "platformIds">,
  platform: string | undefined,
  authorKey: string | undefined
): Pick<VerdictRecord, "platform" | "permalink" | "publishedAt" | "post" | "author" | "platformIds"> => {
  const publishedAt = isoTimeOf(event.publishedAt)
  const post = event.post
  const postPublishedAt = isoTimeOf(post?.publishedAt)
  const author = event.author
  return {
    ...(platform === undefined ? {} : { platform }),
    ...(event.permalink === undefined ? {} : { permalink: event.permalink }),
    ...(publishedAt === undefined ? {} : { publishedAt }),
    ...(post === undefined
      ? {}
      : {
          post: {
            title: post.title,
            ...(post.permalink === undefined ? {} : { permalink: post.permalink }),
            ...(post.reference === undefined ? {} : { reference: post.reference }),
            ...(postPublishedAt === undefined ? {} : { publishedAt: postPublishedAt })
          }
        }),
    ...(author === undefined
      ? {}
      : {
          author: {
            ...(author.identifier === undefined || author.identifier === "" ? {} : { identifier: author.identifier }),
            username: author.username,
            ...(authorKey === undefined ? {} : { key: authorKey }),
            ...(author.permalink === undefined ? {} : { permalink: author.permalink })
          }
        }),
    ...(event.platformIds === undefined || Object.keys(event.platformIds).length === 0
      ? {}
      : { platformIds: event.platformIds })
  }
}

/** Builds the record of an outcome (without content: {@link withText} adds it for the sinks that ask). */
export const fromOutcome = (fields: {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly contentType: string
  readonly mode: Mode
  readonly outcome: Outcome
  readonly locator?: Pick<VerdictRecord, "platform" | "permalink" | "publishedAt" | "post" | "author" | "platformIds">
  readonly analysedAt: string
  readonly dryRun: boolean
  readonly rule: string | undefined
  readonly actions: ReadonlyArray<string>
}): VerdictRecord => ({
  source: fields.source,
  reference: fields.reference,
  version: fields.version,
  status: fields.outcome.status,
  contentType: fields.contentType,
  mode: fields.mode,
  ...(fields.outcome.status === "analysed"
    ? { verdict: fields.outcome.verdict }
    : fields.outcome.status === "failed"
      ? { error: { code: fields.outcome.error.code, message: fields.outcome.error.message } }
      : fields.outcome.status === "unrecognised"
        ? { error: unrecognisedError(fields.outcome.shape) }
        : {
            error: {
              code: "UNANALYSED",
              message: `the API could not be reached; failure mode ${fields.outcome.mode} (analysed when it is back)`
            }
          }),
  ...fields.locator,
  segments: fields.outcome.status === "analysed" ? fields.outcome.segments.length : 0,
  analysedAt: fields.analysedAt,
  dryRun: fields.dryRun,
  ...(fields.rule === undefined ? {} : { rule: fields.rule }),
  ...(fields.actions.length === 0 ? {} : { actions: fields.actions })
})

/** The record with the content text, for a sink whose entry says `content: true`. */
export const withText = (record: VerdictRecord, text: string): VerdictRecord => ({ ...record, text })
