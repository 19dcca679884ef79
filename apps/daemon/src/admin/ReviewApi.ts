/**
 * The admin API's review group (the review queue and its decisions, appeals, the audit, an author's
 * history: issues 36, 37) and the schemas it answers with. Composed into `AdminApi`.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict, Gone, NotFound } from "./AdminError.ts"
import { ActionRow, FeedbackSent, ReviewItem } from "./ItemSchemas.ts"
import { noControlCharacters } from "./RequestInput.ts"

const Text = Schema.String
const OptionalText = Schema.optionalKey(Schema.String)

/** `GET /api/review`. */
export const ReviewPage = Schema.Struct({
  items: Schema.Array(ReviewItem),
  nextCursor: Schema.NullOr(Text),
  pending: Schema.Struct({ total: Schema.Int, bySource: Schema.Record(Schema.String, Schema.Int) })
}).annotate({ identifier: "ReviewPage" })

/** The body of `POST /api/decisions/{reference}/review`. */
export const ReviewBody = Schema.Struct({
  decision: Schema.Literals(["approve", "reject"]),
  note: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(2000))),
  /** The classifications the moderator ticked: feedback adds (a rejection) or removes (an approval) them. */
  classifications: Schema.optionalKey(
    Schema.Array(Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(64), noControlCharacters)).check(
      Schema.isMaxLength(32)
    )
  )
}).annotate({ identifier: "ReviewDecision" })

/** What a review decision did. */
export const ReviewResult = Schema.Struct({
  review: ReviewItem,
  /** The platform actions queued (rule `review`); their outcome shows on the item. */
  actions: Schema.Array(ActionRow),
  /** The platform's side in words: "reject queued on the platform", "not possible on this platform"... */
  platformNote: Text,
  feedback: Schema.NullOr(FeedbackSent),
  feedbackNote: Text
}).annotate({ identifier: "ReviewResult" })

/** The body of `POST /api/appeals`. */
export const AppealBody = Schema.Struct({
  source: Schema.optionalKey(Schema.String.check(noControlCharacters)),
  reference: Schema.String.check(Schema.isNonEmpty(), noControlCharacters),
  statement: Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(5000))
}).annotate({ identifier: "Appeal" })

/** One entry of the audit. */
export const AuditEntry = Schema.Struct({
  id: Text,
  at: Text,
  actor: Text,
  role: Text,
  action: Text,
  source: Schema.NullOr(Text),
  reference: Schema.NullOr(Text),
  version: Schema.NullOr(Schema.Int),
  detail: Schema.Unknown
}).annotate({ identifier: "AuditEntry" })

/** Counts of an author's items over a window. */
const WindowCounts = Schema.Struct({
  total: Schema.Int,
  byType: Schema.Record(Schema.String, Schema.Int),
  bySeverity: Schema.Record(Schema.String, Schema.Int)
})

/** One of an author's items, with what came of it. */
export const AuthorItem = Schema.Struct({
  source: Text,
  reference: Text,
  version: Schema.Int,
  status: Text,
  createdAt: Text,
  username: Schema.NullOr(Text),
  verdict: Schema.Unknown,
  rule: Schema.NullOr(Text),
  review: Schema.NullOr(Schema.Struct({ state: Text, kind: Text, decidedBy: Schema.NullOr(Text) })),
  actions: Schema.Array(Schema.Struct({ kind: Text, status: Text, rule: Text })),
  feedback: Schema.Array(Schema.Struct({ origin: Text, status: Text, id: Schema.NullOr(Text) })),
  appeals: Schema.Array(Schema.Struct({ state: Text, decidedBy: Schema.NullOr(Text) })),
  strike: Schema.NullOr(Schema.Struct({ kind: Text, weight: Schema.Number, removed: Schema.Boolean })),
  erased: Schema.Boolean
}).annotate({ identifier: "AuthorItem" })

/** `GET /api/authors/{author}`. */
export const AuthorHistory = Schema.Struct({
  author: Schema.Struct({
    key: Text,
    platform: Text,
    identifier: Text,
    usernames: Schema.Array(Text),
    sources: Schema.Array(Text),
    firstSeenAt: Text,
    lastSeenAt: Text
  }),
  counts: Schema.Struct({ "24h": WindowCounts, "7d": WindowCounts, "30d": WindowCounts }),
  strikes: Schema.Struct({
    /** The decayed score now. */
    score: Schema.Number,
    /** Strikes in force. */
    count: Schema.Int,
    lastAt: Schema.NullOr(Text),
    halfLife: Text,
    /** "3 strikes, 1.6 after decay; the last on 11-20". */
    explanation: Text,
    /** The score over the last 30 days, daily and now (for a chart). */
    series: Schema.Array(Schema.Struct({ at: Text, score: Schema.Number })),
    list: Schema.Array(
      Schema.Struct({
        source: Text,
        reference: Text,
        kind: Text,
        weight: Schema.Number,
        at: Text,
        /** The strike's weight now. */
        now: Schema.Number,
        removedAt: Schema.NullOr(Text),
        removedBy: Schema.NullOr(Text),
        removedReason: Schema.NullOr(Text)
      })
    )
  }),
  items: Schema.Array(AuthorItem),
  nextCursor: Schema.NullOr(Text)
}).annotate({ identifier: "AuthorHistory" })

/** The review queue, its decisions and appeals (issue 36, 37). */
export class ReviewGroup extends HttpApiGroup.make("review").add(
  HttpApiEndpoint.get("list", "/api/review", {
    query: { state: OptionalText, source: OptionalText, kind: OptionalText, limit: OptionalText, cursor: OptionalText },
    success: ReviewPage
  }).annotate(
    OpenApi.Summary,
    "The review queue: pending (most severe, then oldest) or decided (newest first), a page and the pending counts"
  ),
  HttpApiEndpoint.post("decide", "/api/decisions/:reference/review", {
    params: { reference: Schema.String },
    query: { source: OptionalText },
    payload: ReviewBody,
    success: ReviewResult,
    error: [NotFound, Conflict]
  }).annotate(
    OpenApi.Summary,
    "Approve or reject the item's pending review (or uphold / deny its appeal); 409 ALREADY_DECIDED names who did first"
  ),
  HttpApiEndpoint.post("fileAppeal", "/api/appeals", {
    payload: AppealBody,
    success: Schema.Struct({ review: ReviewItem }),
    error: [NotFound, Conflict, Gone]
  }).annotate(OpenApi.Summary, "Files an appeal of an item (its latest version) with the author's statement"),
  HttpApiEndpoint.get("audit", "/api/audit", {
    query: {
      actor: OptionalText,
      action: OptionalText,
      source: OptionalText,
      limit: OptionalText,
      cursor: OptionalText
    },
    success: Schema.Struct({ entries: Schema.Array(AuditEntry), nextCursor: Schema.NullOr(Text) })
  }).annotate(OpenApi.Summary, "Who did what and when, newest first"),
  HttpApiEndpoint.get("author", "/api/authors/:author", {
    params: { author: Schema.String },
    query: { limit: OptionalText, cursor: OptionalText },
    success: AuthorHistory,
    error: NotFound
  }).annotate(
    OpenApi.Summary,
    "An author's items across sources (newest first), counts over 24 h / 7 d / 30 d, strikes and their decay"
  )
) {}
