/**
 * The admin API's decisions group (`/api/decisions`, feedback by reference, moderation on the platform,
 * the limiter, source dead letters) and the schemas it answers with. Composed into `AdminApi`.
 */
import { Confidence } from "@warden/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ActionOutcome, DecisionFields } from "../domain/Decision.ts"
import { Conflict, Gone, NotFound, Upstream } from "./AdminError.ts"
import { ActionRow, FeedbackSent, ReviewItem } from "./ItemSchemas.ts"
import { noControlCharacters } from "./RequestInput.ts"

const Text = Schema.String
const OptionalText = Schema.optionalKey(Schema.String)

/** The review a rule sent an item version to (or an appeal of it), as a decision row shows it. */
export const DecisionReview = Schema.Struct({
  kind: Text,
  /** `pending`, `approved`, `rejected`, `superseded`; an appeal's `upheld` / `denied`. */
  state: Text,
  decidedBy: Schema.NullOr(Text),
  decidedAt: Schema.NullOr(Text)
}).annotate({ identifier: "DecisionReview" })

/** A recorded item version and its verdict: a row of `GET /api/decisions`. */
export const Decision = Schema.Struct({
  // The stored decision's fields (domain/Decision.ts), two of them shown otherwise in their place:
  ...DecisionFields,
  /** The exact request body sent to the API, as JSON (feedback sends it back unchanged); null once erased. */
  request: Schema.Unknown,
  /** When it was recorded, an ISO time. */
  createdAt: Text,
  /** The author (`key`: `<platform>:<identifier>`, for `GET /api/authors/{author}`); null when the event names none. */
  author: Schema.NullOr(Schema.Struct({ key: Text, username: Schema.NullOr(Text) })),
  /** The review the rule sent it to (or its appeal), null when none. */
  review: Schema.NullOr(DecisionReview),
  /** "not possible on this platform" where the connector can take no action (RSS), else null. */
  platform: Schema.NullOr(Text)
}).annotate({ identifier: "Decision" })

/** What became of one platform action of a listed decision (declared with the stored decision). */
export { ActionOutcome }

/** A row of `GET /api/decisions` (and an event of its stream): the decision and its actions' outcomes. */
export const ListedDecision = Schema.Struct({
  ...Decision.fields,
  actions: Schema.Array(ActionOutcome)
}).annotate({ identifier: "ListedDecision" })

/** Feedback sent about an item version. */
export const FeedbackRow = Schema.Struct({
  source: Text,
  version: Schema.Int,
  origin: Text,
  id: Schema.NullOr(Text),
  status: Text,
  error: Schema.NullOr(Text),
  request: Schema.Unknown,
  createdAt: Schema.Number
}).annotate({ identifier: "FeedbackRow" })

/** What a moderator can ask of the platform from the console: Restore (reverse Warden's removal) or Remove. */
export const PlatformAction = Schema.Literals(["restore", "remove"])

/** `GET /api/decisions/{reference}`. */
export const DecisionDetail = Schema.Struct({
  reference: Text,
  source: Text,
  /** The latest version's source event (author, permalink, post), as the connector emitted it. */
  event: Schema.Unknown,
  latest: Decision,
  versions: Schema.Array(Decision),
  actions: Schema.Array(ActionRow),
  feedback: Schema.Array(FeedbackRow),
  /** What a moderator can ask of the platform now (`POST /api/decisions/{reference}/moderate`). */
  platformActions: Schema.Array(PlatformAction),
  /** The rule that matched the latest version (null: none), with or without platform actions. */
  rule: Schema.NullOr(Text),
  /** The item's review rows (the queue's and appeals), newest first. */
  reviews: Schema.Array(ReviewItem)
}).annotate({ identifier: "DecisionDetail" })

/** The body of `POST /api/decisions/{reference}/moderate`. */
export const ModerateBody = Schema.Struct({
  source: Schema.optionalKey(Schema.String.check(noControlCharacters)),
  action: PlatformAction
}).annotate({ identifier: "Moderate" })

/** The body of `POST /api/feedback`. */
export const FeedbackBody = Schema.Struct({
  reference: Schema.String.check(Schema.isNonEmpty(), noControlCharacters),
  version: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  source: Schema.optionalKey(Schema.String.check(noControlCharacters)),
  classificationsToAdd: Schema.optionalKey(Schema.Array(Schema.String)),
  classificationsToRemove: Schema.optionalKey(Schema.Array(Schema.String)),
  notes: Schema.optionalKey(Schema.String),
  confidence: Schema.optionalKey(Confidence)
}).annotate({ identifier: "FeedbackByReference" })

/** What a moderator's Restore / Remove did: the platform action, and the automatic feedback. */
export const ModerateResult = Schema.Struct({
  action: Schema.Struct({
    kind: Text,
    seq: Schema.Int,
    /** `done`, `failed`, or `pending` when it is still being tried (a retryable platform error). */
    status: Text,
    attempts: Schema.Number,
    lastError: Schema.NullOr(Text)
  }),
  /** The automatic feedback sent, or null (`feedbackNote` says why not). */
  feedback: Schema.NullOr(FeedbackSent),
  feedbackNote: Text
}).annotate({ identifier: "ModerateResult" })

/** An event a source emitted that the daemon could not take. */
export const SourceDeadLetter = Schema.Struct({
  source: Text,
  reference: Text,
  field: Text,
  reason: Text,
  event: Text,
  count: Schema.Number,
  firstAt: Text,
  lastAt: Text
}).annotate({ identifier: "SourceDeadLetter" })

/** The limiter's view of one API endpoint. */
export const QuotaEndpoint = Schema.Struct({
  endpoint: Text,
  configuredRate: Schema.NullOr(Schema.Number),
  learntRate: Schema.NullOr(Schema.Number),
  currentRate: Schema.NullOr(Schema.Number),
  /** How many calls may go at once at `currentRate` (the limiter's bucket); `null` when unlimited. */
  burst: Schema.NullOr(Schema.Number),
  recent429s: Schema.Number
})

/** The filters `GET /api/decisions` and its stream share. */
export const DecisionFilters = {
  source: OptionalText,
  type: OptionalText,
  severity: OptionalText,
  actionStatus: OptionalText,
  q: OptionalText,
  classification: OptionalText,
  action: OptionalText,
  /** An author key (`<platform>:<identifier>`). */
  author: OptionalText,
  rule: OptionalText
} as const

/** Decisions, feedback by reference, the limiter and source dead letters. */
export class DecisionsGroup extends HttpApiGroup.make("decisions").add(
  HttpApiEndpoint.get("list", "/api/decisions", {
    query: { ...DecisionFilters, since: OptionalText, limit: OptionalText, cursor: OptionalText },
    success: Schema.Struct({ decisions: Schema.Array(ListedDecision), nextCursor: Schema.NullOr(Text) })
  }).annotate(OpenApi.Summary, "Decisions, newest first, a page and the cursor of the next"),
  HttpApiEndpoint.get("one", "/api/decisions/:reference", {
    params: { reference: Schema.String },
    query: { source: OptionalText },
    success: DecisionDetail,
    error: [NotFound, Conflict]
  }).annotate(OpenApi.Summary, "Every version of an item, the request sent, its actions and feedback"),
  HttpApiEndpoint.post("feedback", "/api/feedback", {
    payload: FeedbackBody,
    success: FeedbackSent,
    error: [NotFound, Conflict, Gone, Upstream]
  }).annotate(OpenApi.Summary, "Feedback by reference, sent with the exact request stored for the item"),
  HttpApiEndpoint.post("moderate", "/api/decisions/:reference/moderate", {
    params: { reference: Schema.String },
    payload: ModerateBody,
    success: ModerateResult,
    error: [NotFound, Conflict, Gone, Upstream]
  }).annotate(
    OpenApi.Summary,
    "Restore (reverse Warden's hide) or Remove an item on its platform, and send the source's automatic feedback"
  ),
  HttpApiEndpoint.get("quota", "/api/quota", {
    success: Schema.Struct({ endpoints: Schema.Array(QuotaEndpoint) })
  }).annotate(OpenApi.Summary, "The limiter's configured, learnt and enforced rate and burst per API endpoint"),
  HttpApiEndpoint.get("deadLetters", "/api/dead-letters", {
    query: { source: OptionalText, limit: OptionalText },
    success: Schema.Struct({ deadLetters: Schema.Array(SourceDeadLetter) })
  }).annotate(OpenApi.Summary, "Events sources emitted that the daemon could not take")
) {}
