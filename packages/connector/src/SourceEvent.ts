/**
 * The events a connector emits to the daemon: content to analyse (`upsert`), content gone
 * (`delete`), human signals (`reversal`, `report`), a poll that found nothing new (`progress`) and
 * upstream trouble (`error`).
 *
 * @since 0.1.0
 */
import { Exit, Schema, SchemaIssue } from "effect"
import { Checkpoint, findNonJson } from "./Checkpoint.ts"

/** Longest `reference` the daemon accepts (it is a primary key in the state store). */
export const maxReferenceLength = 256

/**
 * A stable, globally unique identifier of an item, e.g. `rss:<feedId>/<guid-hash>` or
 * `discord:<guild>/<channel>/<message>`: the same item always gets the same reference, across runs.
 */
export const Reference = Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(maxReferenceLength)).annotate({
  title: "Reference",
  description: "Stable, globally unique id of an item within its source (at most 256 characters)"
})

/** Plain text to analyse (HTML already converted to text by the connector). */
export const TextContent = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })

/** An image to analyse, by URL. */
export const ImageUrlContent = Schema.Struct({ type: Schema.Literal("image"), url: Schema.String })

/** An image to analyse, inline as base64. */
export const ImageDataContent = Schema.Struct({ type: Schema.Literal("image"), data: Schema.String })

/** A username to analyse (e.g. a new member's display name). */
export const UsernameContent = Schema.Struct({ type: Schema.Literal("username"), username: Schema.String })

/** What to analyse: text, an image (URL or base64) or a username. */
export const Content = Schema.Union([TextContent, ImageUrlContent, ImageDataContent, UsernameContent])
/** @see {@link Content} */
export type Content = typeof Content.Type

/**
 * Who wrote the item, as far as the platform says. `identifier` is the stable name of the author on the
 * platform: its user id (Discord's user id, YouTube's channel id), or where it has none a derivation
 * the connector documents (an RSS author's URI, else email, else feed and name). Warden keeps an
 * author's history and strikes by it and `warden erase --author` finds their items by it: set it
 * whenever the event names an author (the conformance kit's `authorIdentifiers` check).
 */
export const Author = Schema.Struct({
  identifier: Schema.optionalKey(Schema.String),
  username: Schema.String,
  permalink: Schema.optionalKey(Schema.String),
  profilePictureUrl: Schema.optionalKey(Schema.String),
  countryCode: Schema.optionalKey(Schema.String)
})
/** @see {@link Author} */
export type Author = typeof Author.Type

/** The post (article, video, thread starter) an item belongs to. */
export const Post = Schema.Struct({
  title: Schema.String,
  reference: Schema.optionalKey(Schema.String),
  publishedAt: Schema.optionalKey(Schema.String),
  permalink: Schema.optionalKey(Schema.String),
  countryCode: Schema.optionalKey(Schema.String)
})
/** @see {@link Post} */
export type Post = typeof Post.Type

/** Where an item sits in a conversation. */
export const Thread = Schema.Struct({
  topLevelReference: Schema.optionalKey(Schema.String),
  parentReference: Schema.optionalKey(Schema.String)
})
/** @see {@link Thread} */
export type Thread = typeof Thread.Type

/**
 * The platform's own ids of an item, by name, where the connector has them: `guild`, `channel`,
 * `message` (and `attachment`) on Discord, `video` and `comment` on YouTube. Copied into the verdict
 * records the sinks receive, so a receiver can find the item on the platform without parsing the
 * reference.
 */
export const PlatformIds = Schema.Record(Schema.String, Schema.String)
/** @see {@link PlatformIds} */
export type PlatformIds = typeof PlatformIds.Type

/**
 * New or changed content. An edited item is emitted again with the same `reference`; the daemon
 * versions items by content hash, so no version hint is needed. `publishedAt` is an ISO 8601 string.
 */
export const Upsert = Schema.Struct({
  kind: Schema.Literal("upsert"),
  reference: Reference,
  checkpoint: Checkpoint,
  content: Content,
  publishedAt: Schema.optionalKey(Schema.String),
  permalink: Schema.optionalKey(Schema.String),
  language: Schema.optionalKey(Schema.String),
  author: Schema.optionalKey(Author),
  post: Schema.optionalKey(Post),
  thread: Schema.optionalKey(Thread),
  platformIds: Schema.optionalKey(PlatformIds)
})
/** @see {@link Upsert} */
export type Upsert = typeof Upsert.Type

/**
 * A poll-based source read its upstream and found nothing to emit (a `304`, an unchanged document, no
 * new comments): `checkpoint` is where it stands now. The daemon commits it in stream order, once every
 * event before it is handled, as it commits a batch's last checkpoint; nothing is analysed. A quiet
 * source then shows as caught up (`warden_checkpoint_lag_seconds` counts from its last successful
 * poll) rather than stuck, while a pipeline whose earlier items are not handled still shows stuck.
 */
export const Progress = Schema.Struct({
  kind: Schema.Literal("progress"),
  checkpoint: Checkpoint
})
/** @see {@link Progress} */
export type Progress = typeof Progress.Type

/** The item is gone upstream (deleted by its author or a moderator). */
export const Delete = Schema.Struct({
  kind: Schema.Literal("delete"),
  reference: Reference,
  checkpoint: Checkpoint
})
/** @see {@link Delete} */
export type Delete = typeof Delete.Type

/** Who gave a human signal (a moderator or a user of the platform). */
export const Actor = Schema.Struct({
  identifier: Schema.optionalKey(Schema.String),
  username: Schema.optionalKey(Schema.String)
})
/** @see {@link Actor} */
export type Actor = typeof Actor.Type

/**
 * A moderator undid an action Warden took on `reference` (restored a hidden comment, un-timed-out an
 * author): the daemon records it as negative feedback on the verdict. `action` names the undone action kind.
 */
export const Reversal = Schema.Struct({
  kind: Schema.Literal("reversal"),
  reference: Reference,
  checkpoint: Checkpoint,
  action: Schema.optionalKey(Schema.String),
  by: Schema.optionalKey(Actor)
})
/** @see {@link Reversal} */
export type Reversal = typeof Reversal.Type

/** An end user reported `reference` (a miss): the daemon records it as feedback on the verdict. */
export const Report = Schema.Struct({
  kind: Schema.Literal("report"),
  reference: Reference,
  checkpoint: Checkpoint,
  note: Schema.optionalKey(Schema.String),
  by: Schema.optionalKey(Actor)
})
/** @see {@link Report} */
export type Report = typeof Report.Type

/**
 * The upstream failed and the source is retrying by itself (feed down, 503, malformed document).
 * Carries no checkpoint: there is nothing to commit. The daemon logs it, counts it in metrics and may
 * report the source as degraded; it never stops the source. `retryInMillis` is the wait before the next try.
 */
export const ErrorEvent = Schema.Struct({
  kind: Schema.Literal("error"),
  source: Schema.String,
  reason: Schema.String,
  message: Schema.String,
  attempt: Schema.Int,
  retryInMillis: Schema.Finite
})
/** @see {@link ErrorEvent} */
export type ErrorEvent = typeof ErrorEvent.Type

/** Everything a source's stream emits, tagged by `kind`. */
export const SourceEvent = Schema.Union([Upsert, Delete, Reversal, Report, Progress, ErrorEvent])
/** @see {@link SourceEvent} */
export type SourceEvent = typeof SourceEvent.Type

/** The events that carry a reference and a checkpoint (all but `progress` and `error`). */
export type ItemEvent = Upsert | Delete | Reversal | Report

/** Whether an event is about an item (and carries a checkpoint to commit once handled). */
export const isItemEvent = (event: SourceEvent): event is ItemEvent =>
  event.kind !== "error" && event.kind !== "progress"

/** The events the daemon commits a checkpoint of, in stream order: item events and `progress`. */
export type Positioned = ItemEvent | Progress

/** Whether an event carries a checkpoint (an item event, or `progress`). */
export const isPositioned = (event: SourceEvent): event is Positioned => event.kind !== "error"

/** Whether an event is a `progress` report (a poll that found nothing new). */
export const isProgressEvent = (event: SourceEvent): event is Progress => event.kind === "progress"

/** Whether an event is an upstream error report. */
export const isErrorEvent = (event: SourceEvent): event is ErrorEvent => event.kind === "error"

/** Decodes an unknown value as a SourceEvent; failures name the offending field. */
export const decodeUnknownExit = Schema.decodeUnknownExit(SourceEvent, { errors: "all" })

/**
 * The same decode, stopping at the first issue. Schema parses a struct with a plain loop only under
 * the default options; `errors: "all"` runs a generator per struct, which made the daemon's check of
 * every event ~6% of its allocation. A valid event (nearly all of them) takes this path;
 * {@link decodeUnknownExit} runs only to name every problem of an invalid one.
 */
const decodeFirstIssue = Schema.decodeUnknownExit(SourceEvent)

/** A plain-text upsert, the common case of text connectors. */
export const upsertText = (fields: Omit<Upsert, "kind" | "content"> & { readonly text: string }): Upsert => {
  const { text, ...rest } = fields
  return { kind: "upsert", ...rest, content: { type: "text", text } }
}

/** One thing wrong with an event: the field (`reference`, `content.text`, `checkpoint.seq`) and why. */
export interface Problem {
  readonly field: string
  readonly message: string
}

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

const joinPath = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string =>
  path
    .map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p))
    .reduce<string>(
      (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`),
      ""
    )

/**
 * Everything wrong with an event, as the daemon judges it before taking it: the SourceEvent schema
 * (a reference over 256 characters, content missing its text...) and, for item events, a checkpoint
 * that is not plain JSON (a BigInt, NaN, a class instance), named down to the offending field.
 * Empty when the event is fine. The daemon dead-letters an event with problems and goes on;
 * `warden source preview` prints them.
 */
export const problems = (event: unknown): ReadonlyArray<Problem> => {
  if (Exit.isSuccess(decodeFirstIssue(event))) return []
  const exit = decodeUnknownExit(event)
  if (Exit.isSuccess(exit)) return []
  const out: Array<Problem> = []
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  const issues = error === undefined ? [] : formatIssue(error.issue).issues
  for (const issue of issues) {
    const field = joinPath(issue.path ?? [])
    if (field === "checkpoint") {
      const where = findNonJson((event as { checkpoint?: unknown }).checkpoint)
      if (where !== undefined) {
        out.push({ field: where.path, message: where.message })
        continue
      }
    }
    out.push({ field: field === "" ? "(event)" : field, message: issue.message })
  }
  if (out.length === 0) out.push({ field: "(event)", message: "not a SourceEvent" })
  return out
}

/** The problems of {@link problems} as one line: `reference: Expected ...; checkpoint.seq: a bigint is not JSON`. */
export const formatProblems = (list: ReadonlyArray<Problem>): string =>
  list.map((p) => `${p.field}: ${p.message}`).join("; ")
