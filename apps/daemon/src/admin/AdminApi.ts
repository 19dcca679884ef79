/**
 * The admin API, declared once as an Effect `HttpApi` (as `@warden/core` declares the Content Analysis
 * API): every route the console and operators call, with its query, path, body, success and error
 * schemas. `AdminServer` serves it with `HttpApiBuilder` (handlers in `AdminHandlers.ts`) and its
 * OpenAPI document at `/api/openapi.json`.
 *
 * Not in here, served beside it by `AdminServer` (`ConsoleRoutes.ts`), each for a reason HttpApi has
 * no words for: the console's files and the sign-in link (`GET /?token=`: a redirect setting a cookie
 * on the same path as the page), and the live decisions (`GET /api/decisions/stream`: server-sent
 * events with a `retry:` field and keep-alive comments, polled from the state store).
 *
 * Query parameters are strings here; their meaning (integers in range, instants, cursors) is read by
 * the handlers with `RequestInput`, so each problem is a 400 naming the parameter. Any parameter the
 * endpoint does not declare is refused (`InputValidation`): a filter the API ignored would answer with
 * everything, which looks like a match.
 */
import { Confidence } from "@warden/core"
import { Context, Schema } from "effect"
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi
} from "effect/http-api"
import {
  BadRequest,
  Conflict,
  CrossSiteRefused,
  Gone,
  NotFound,
  PayloadTooLarge,
  Unauthenticated,
  UnsupportedMediaType,
  Upstream
} from "./AdminError.ts"
import * as ConsoleCookie from "./ConsoleCookie.ts"
import type { Moderator } from "./ModeratorRole.ts"
import * as Action from "../domain/Action.ts"
import { ClusterOverview } from "../state/ClusterStatus.ts"
import { noControlCharacters } from "./RequestInput.ts"

// ---------------------------------------------------------------------------------------------------
// Middleware

/**
 * Who made a request: a moderator (or the shared token's automation, `admin-token`) with their role,
 * by bearer token or in a signed-in console.
 */
export type Caller = Moderator &
  (
    | { readonly via: "bearer" }
    | { readonly via: "cookie"; readonly session: ConsoleCookie.Session & { readonly id: string } }
  )

/** The authenticated caller of the current request. */
export class AdminCaller extends Context.Service<AdminCaller, Caller>()("@warden/daemon/AdminCaller") {}

/**
 * `Authorization: Bearer <token>` (the shared `admin.token` or a moderator's own), or the console's
 * session cookie (then state-changing calls also need the session's CSRF token in `x-warden-csrf` and
 * the console's origin); then the role the route needs (`Permissions`: 403 `FORBIDDEN` otherwise).
 */
export class AdminAuth extends HttpApiMiddleware.Service<AdminAuth, { provides: AdminCaller }>()(
  "@warden/daemon/AdminAuth",
  {
    security: {
      bearer: HttpApiSecurity.bearer,
      session: HttpApiSecurity.apiKey({ key: ConsoleCookie.COOKIE, in: "cookie" })
    },
    error: [Unauthenticated, CrossSiteRefused]
  }
) {}

/**
 * Input problems (query, path, body) as the 400 envelope naming the parameter or field; a body over
 * the limit (413), or without its JSON `Content-Type` (415).
 */
export class InputValidation extends HttpApiMiddleware.Service<InputValidation>()("@warden/daemon/InputValidation", {
  error: [BadRequest, PayloadTooLarge, UnsupportedMediaType]
}) {}

// ---------------------------------------------------------------------------------------------------
// Schemas

const Text = Schema.String
const OptionalText = Schema.optionalKey(Schema.String)

/** A moderator's role. */
export const Role = Schema.Literals(["viewer", "moderator", "admin"])

/** The author of an item, as the review queue and the decisions show it. */
export const ItemAuthor = Schema.Struct({
  /** `<platform>:<identifier>`: the path segment of `GET /api/authors/{author}` (URL-encoded). */
  key: Schema.NullOr(Text),
  identifier: Schema.NullOr(Text),
  username: Schema.NullOr(Text),
  permalink: Schema.NullOr(Text)
}).annotate({ identifier: "ItemAuthor" })

/** An item in the review queue (`kind` item) or an appeal (`kind` appeal). */
export const ReviewItem = Schema.Struct({
  source: Text,
  reference: Text,
  version: Schema.Int,
  kind: Schema.Literals(["item", "appeal"]),
  /** `pending`, `approved`, `rejected`, `superseded` (a newer version came); an appeal's `upheld` / `denied`. */
  state: Text,
  rule: Schema.NullOr(Text),
  verdict: Schema.Unknown,
  createdAt: Text,
  decidedAt: Schema.NullOr(Text),
  decidedBy: Schema.NullOr(Text),
  note: Schema.NullOr(Text),
  classifications: Schema.NullOr(Schema.Array(Text)),
  /** An appeal's statement (the author's words). */
  statement: Schema.NullOr(Text),
  content: Schema.Struct({ type: Text, text: OptionalText, url: OptionalText, username: OptionalText }),
  language: Schema.NullOr(Text),
  permalink: Schema.NullOr(Text),
  author: Schema.NullOr(ItemAuthor),
  post: Schema.NullOr(Schema.Struct({ title: Text, permalink: Schema.NullOr(Text) })),
  /** What Warden holds on the platform, and what a decision can do there. */
  platform: Schema.Struct({
    held: Schema.Boolean,
    canRemove: Schema.Boolean,
    canRestore: Schema.Boolean,
    note: OptionalText
  }),
  /** How many versions the item has (earlier ones: `GET /api/decisions/{reference}`). */
  versions: Schema.Int
}).annotate({ identifier: "ReviewItem" })

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
  source: Text,
  reference: Text,
  version: Schema.Int,
  status: Text,
  contentType: Text,
  mode: Text,
  endpoint: Schema.NullOr(Text),
  /** The exact request body sent to the API, as JSON (feedback sends it back unchanged); null once erased. */
  request: Schema.Unknown,
  verdict: Schema.Unknown,
  error: Schema.Unknown,
  segments: Schema.Number,
  analysedAt: Schema.NullOr(Text),
  createdAt: Text,
  deletedAt: Schema.NullOr(Text),
  /**
   * The source's rule that matched (`failureMode` for the failure mode's action), with or without
   * platform actions; null when none did (or, for a version recorded before the daemon kept it, when
   * its rule took no action).
   */
  rule: Schema.NullOr(Text),
  /** The author (`key`: `<platform>:<identifier>`, for `GET /api/authors/{author}`); null when the event names none. */
  author: Schema.NullOr(Schema.Struct({ key: Text, username: Schema.NullOr(Text) })),
  /** The review the rule sent it to (or its appeal), null when none. */
  review: Schema.NullOr(DecisionReview),
  /** "not possible on this platform" where the connector can take no action (RSS), else null. */
  platform: Schema.NullOr(Text)
}).annotate({ identifier: "Decision" })

/** What became of one platform action of a listed decision. */
export const ActionOutcome = Schema.Struct({
  rule: Text,
  kind: Text,
  /** `pending`, `done`, `failed` or `would-do` (a dry run). */
  status: Text
}).annotate({ identifier: "ActionOutcome" })

/** A row of `GET /api/decisions` (and an event of its stream): the decision and its actions' outcomes. */
export const ListedDecision = Schema.Struct({
  ...Decision.fields,
  actions: Schema.Array(ActionOutcome)
}).annotate({ identifier: "ListedDecision" })

/** An action Warden asked the platform to take, and its outcome. */
export const ActionRow = Action.ActionRow.annotate({ identifier: "Action" })

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

/** Feedback the API recorded. */
export const FeedbackSent = Schema.Struct({
  id: Text,
  source: Text,
  reference: Text,
  version: Schema.Int,
  endpoint: Text
}).annotate({ identifier: "FeedbackSent" })

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

/** One source in `/readyz`. */
export const SourceReadiness = Schema.Struct({
  state: Text,
  since: Text,
  reason: OptionalText,
  by: Schema.optionalKey(Schema.Literals(["api", "source"])),
  attempt: Schema.optionalKey(Schema.Number),
  api: Schema.Literals(["ok", "failing", "unused"]),
  problem: OptionalText
})

/** The body of `/readyz`, 200 or 503. */
export const ReadinessReport = Schema.Struct({
  ready: Schema.Boolean,
  problems: Schema.Array(Text),
  sources: Schema.Record(Schema.String, SourceReadiness)
}).annotate({ identifier: "Readiness" })

/** 503 from `/readyz`: the daemon cannot make progress; the body is the same report. */
export class NotReady extends Schema.Error<NotReady>("NotReady")(
  { _tag: Schema.tagDefaultOmit("NotReady"), ...ReadinessReport.fields },
  { httpApiStatus: 503, identifier: "NotReady", description: "The daemon cannot make progress" }
) {}

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

/** The pipeline's counters (`PipelineView`). */
export const Pipeline = Schema.Struct({
  sinks: Schema.Array(
    Schema.Struct({
      sink: Text,
      backlog: Schema.Number,
      deadLetters: Schema.Number,
      /** Since when its deliveries fail (ISO), while they do. */
      failingSince: Schema.optionalKey(Text)
    })
  ),
  items: Schema.Array(Schema.Struct({ source: Text, status: Text, count: Schema.Number })),
  /** Verdicts of one type in one minute (`minute`: the minute's start, epoch milliseconds). */
  verdictsPerMinute: Schema.Array(Schema.Struct({ minute: Schema.Number, type: Text, count: Schema.Number }))
}).annotate({ identifier: "Pipeline" })

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

// ---------------------------------------------------------------------------------------------------
// Groups

/** `/healthz`: public, the process is up. */
export class HealthGroup extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("healthz", "/healthz", { success: Schema.Struct({ status: Schema.Literal("ok") }) })
) {}

/** Readiness and metrics (public when `admin.public` lists them). */
export class ProbesGroup extends HttpApiGroup.make("probes").add(
  HttpApiEndpoint.get("readyz", "/readyz", { success: ReadinessReport, error: NotReady }).annotate(
    OpenApi.Summary,
    "200 when the daemon can make progress, 503 when it cannot; per-source problems either way"
  ),
  HttpApiEndpoint.get("metrics", "/metrics", {
    success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain; version=0.0.4" }))
  }).annotate(OpenApi.Summary, "Prometheus text")
) {}

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

/** What the review console calls besides decisions. */
export class ConsoleGroup extends HttpApiGroup.make("console").add(
  HttpApiEndpoint.get("session", "/api/session", {
    success: Schema.Struct({
      via: Schema.Literals(["bearer", "cookie"]),
      csrf: Schema.NullOr(Text),
      /** Who is signed in (`admin-token` for the shared token) and their role. */
      name: Text,
      role: Role
    })
  }).annotate(
    OpenApi.Summary,
    "Who is signed in, their role, and the CSRF token a console sends on state-changing calls"
  ),
  HttpApiEndpoint.post("signOut", "/session/end", {
    success: Schema.Struct({ signedIn: Schema.Literal(false) })
  }).annotate(OpenApi.Summary, "Ends the console's session"),
  HttpApiEndpoint.get("pipeline", "/api/pipeline", { success: Pipeline }).annotate(
    OpenApi.Summary,
    "Every sink's backlog and dead letters, items per source and status, verdicts per minute"
  ),
  HttpApiEndpoint.post("replay", "/api/sinks/:sink/replay", {
    params: { sink: Schema.String },
    success: Schema.Struct({ sink: Text, replayed: Schema.Number }),
    error: NotFound
  }).annotate(OpenApi.Summary, "Puts a sink's dead letters back into its outbox")
) {}

/** The console's sign-in form (public: it takes the token). */
export class SignInGroup extends HttpApiGroup.make("signIn")
  .add(
    HttpApiEndpoint.post("signIn", "/session", {
      payload: Schema.Struct({ token: Schema.String }),
      success: Schema.Struct({
        signedIn: Schema.Literal(true),
        csrf: Text.annotate({ description: "The session's CSRF token (x-warden-csrf), as GET /api/session answers" }),
        name: Text,
        role: Role
      }),
      error: [Unauthenticated, CrossSiteRefused]
    }).annotate(OpenApi.Summary, "Signs a browser in with the admin token or a moderator's (sets the session cookie)")
  )
  .middleware(InputValidation) {}

/** Policy backtests and erasure. */
export class GovernanceGroup extends HttpApiGroup.make("governance").add(
  HttpApiEndpoint.post("policyTest", "/api/policy/test", {
    payload: Schema.Struct({ source: Schema.String, rules: Schema.optionalKey(Schema.Unknown), since: OptionalText }),
    success: Schema.Unknown.annotate({ description: "The backtest report (as `warden policy test --format json`)" })
  }).annotate(OpenApi.Summary, "Replays a source's stored verdicts through rules; no API call, no action"),
  HttpApiEndpoint.delete("eraseItem", "/api/items/:reference", {
    params: { reference: Schema.String },
    query: { source: OptionalText },
    success: Schema.Unknown.annotate({ description: "The counts erased, the references and the audit id" }),
    error: NotFound
  }).annotate(OpenApi.Summary, "Erases every stored copy of an item's content"),
  HttpApiEndpoint.delete("eraseAuthor", "/api/authors/:author", {
    params: { author: Schema.String },
    query: { source: OptionalText, username: OptionalText, confirm: OptionalText },
    success: Schema.Unknown.annotate({
      description:
        "The counts erased, the references and the audit id; by username without confirm=true, what would be erased"
    }),
    error: NotFound
  }).annotate(
    OpenApi.Summary,
    "Erases an author (<platform>:<identifier>): items, name, strikes, review statements; or, with /api/authors/-?username=NAME&source=ID, the authors of a username (listed first, erased with confirm=true)"
  ),
  HttpApiEndpoint.get("erasures", "/api/erasures", {
    query: { limit: OptionalText },
    success: Schema.Struct({ erasures: Schema.Array(Schema.Unknown) })
  }).annotate(OpenApi.Summary, "The audit of erasures, newest first")
) {}

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

/** The cluster's runners (`ClusterRoute`). */
export class ClusterGroup extends HttpApiGroup.make("cluster").add(
  HttpApiEndpoint.get("cluster", "/api/cluster", {
    success: ClusterOverview.annotate({ description: "The runners, their shards, singletons and work" })
  }).annotate(OpenApi.Summary, "The runners of the cluster as the answering runner sees them")
) {}

/**
 * The whole admin API. Bodies are decoded reporting every problem, refusing unknown fields. Every
 * group but the public sign-in and `/healthz` takes `InputValidation` then `AdminAuth` (in that order:
 * the last added wraps the others), given here once for the groups added before.
 */
export class AdminApi extends HttpApi.make("warden-admin")
  .add(ProbesGroup, DecisionsGroup, ConsoleGroup, GovernanceGroup, ClusterGroup, ReviewGroup)
  .middleware(InputValidation)
  .middleware(AdminAuth)
  .add(SignInGroup, HealthGroup)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", onExcessProperty: "error" })
  .annotateMerge(
    OpenApi.annotations({
      title: "Warden admin API",
      version: "1",
      description:
        "The daemon's admin API and the review console's: decisions, feedback by reference, the pipeline, policy tests, erasure, the cluster. Every error is { error: { code, message, parameter?, sources? } }."
    })
  ) {}
