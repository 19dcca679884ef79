/**
 * Schemas of the YouTube Data API v3 answers this connector reads (`commentThreads.list`,
 * `comments.list`, `videos.list`, error bodies) and of the OAuth token endpoint. Only the fields used
 * are declared; unknown fields are ignored, so a richer answer never breaks decoding.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The quota cost of each call used, in units (YouTube Data API v3 quota table). */
export const cost = {
  "commentThreads.list": 1,
  "comments.list": 1,
  "videos.list": 1,
  "comments.setModerationStatus": 50
} as const
/** A call this connector makes. */
export type Method = keyof typeof cost

/** A comment's moderation state, as in `snippet.moderationStatus`. */
export const ModerationStatus = Schema.Literals(["published", "heldForReview", "likelySpam", "rejected"])
/** @see {@link ModerationStatus} */
export type ModerationStatus = typeof ModerationStatus.Type

/** `snippet` of a `youtube#comment`. */
export const CommentSnippet = Schema.Struct({
  authorDisplayName: Schema.String,
  authorProfileImageUrl: Schema.optionalKey(Schema.String),
  authorChannelUrl: Schema.optionalKey(Schema.String),
  authorChannelId: Schema.optionalKey(Schema.Struct({ value: Schema.String })),
  channelId: Schema.optionalKey(Schema.String),
  videoId: Schema.optionalKey(Schema.String),
  textDisplay: Schema.String,
  textOriginal: Schema.optionalKey(Schema.String),
  parentId: Schema.optionalKey(Schema.String),
  moderationStatus: Schema.optionalKey(Schema.Union([ModerationStatus, Schema.String])),
  publishedAt: Schema.String,
  updatedAt: Schema.String
})
/** @see {@link CommentSnippet} */
export type CommentSnippet = typeof CommentSnippet.Type

/** A `youtube#comment` resource. */
export const Comment = Schema.Struct({
  kind: Schema.Literal("youtube#comment"),
  etag: Schema.optionalKey(Schema.String),
  id: Schema.String,
  snippet: CommentSnippet
})
/** @see {@link Comment} */
export type Comment = typeof Comment.Type

/** A `youtube#commentThread` resource with `part=snippet,replies`. */
export const CommentThread = Schema.Struct({
  kind: Schema.Literal("youtube#commentThread"),
  etag: Schema.optionalKey(Schema.String),
  id: Schema.String,
  snippet: Schema.Struct({
    channelId: Schema.optionalKey(Schema.String),
    videoId: Schema.optionalKey(Schema.String),
    topLevelComment: Comment,
    canReply: Schema.optionalKey(Schema.Boolean),
    totalReplyCount: Schema.Int,
    isPublic: Schema.optionalKey(Schema.Boolean)
  }),
  replies: Schema.optionalKey(Schema.Struct({ comments: Schema.Array(Comment) }))
})
/** @see {@link CommentThread} */
export type CommentThread = typeof CommentThread.Type

const PageInfo = Schema.Struct({ totalResults: Schema.optionalKey(Schema.Int), resultsPerPage: Schema.Int })

/** A page of a list call. */
const ListOf = <K extends string, S extends Schema.Top>(kind: K, item: S) =>
  Schema.Struct({
    kind: Schema.Literal(kind),
    etag: Schema.optionalKey(Schema.String),
    nextPageToken: Schema.optionalKey(Schema.String),
    pageInfo: PageInfo,
    items: Schema.Array(item)
  })

/** Answer of `commentThreads.list`. */
export const CommentThreadListResponse = ListOf("youtube#commentThreadListResponse", CommentThread)
/** @see {@link CommentThreadListResponse} */
export type CommentThreadListResponse = typeof CommentThreadListResponse.Type

/** Answer of `comments.list`. */
export const CommentListResponse = ListOf("youtube#commentListResponse", Comment)
/** @see {@link CommentListResponse} */
export type CommentListResponse = typeof CommentListResponse.Type

/** A `youtube#video` with `part=snippet` (only the title is read). */
export const Video = Schema.Struct({
  kind: Schema.Literal("youtube#video"),
  id: Schema.String,
  snippet: Schema.Struct({ title: Schema.String, channelId: Schema.optionalKey(Schema.String) })
})

/** Answer of `videos.list`. */
export const VideoListResponse = ListOf("youtube#videoListResponse", Video)
/** @see {@link VideoListResponse} */
export type VideoListResponse = typeof VideoListResponse.Type

/** The error body of the Data API: `{ error: { code, message, errors: [{ domain, reason, message }] } }`. */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Int,
    message: Schema.String,
    errors: Schema.optionalKey(
      Schema.Array(
        Schema.Struct({
          domain: Schema.optionalKey(Schema.String),
          reason: Schema.String,
          message: Schema.optionalKey(Schema.String)
        })
      )
    )
  })
})
/** @see {@link ErrorBody} */
export type ErrorBody = typeof ErrorBody.Type

/** The token endpoint's success answer. */
export const TokenResponse = Schema.Struct({
  access_token: Schema.String.check(Schema.isNonEmpty()),
  expires_in: Schema.Finite,
  token_type: Schema.optionalKey(Schema.String),
  scope: Schema.optionalKey(Schema.String)
})
/** @see {@link TokenResponse} */
export type TokenResponse = typeof TokenResponse.Type

/** The token endpoint's error answer (RFC 6749 §5.2), e.g. `{ "error": "invalid_grant" }`. */
export const TokenErrorResponse = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optionalKey(Schema.String)
})

/** Reasons (`errors[].reason`) meaning the daily quota is spent. */
export const quotaReasons: ReadonlySet<string> = new Set(["quotaExceeded", "dailyLimitExceeded"])

/** Reasons meaning "too fast, try again soon". */
export const rateLimitReasons: ReadonlySet<string> = new Set(["rateLimitExceeded", "userRateLimitExceeded"])
