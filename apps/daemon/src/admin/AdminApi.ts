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
import * as Action from "../domain/Action.ts"
import { ClusterOverview } from "../state/ClusterStatus.ts"
import { noControlCharacters } from "./RequestInput.ts"

// ---------------------------------------------------------------------------------------------------
// Middleware

/** Who made a request: an API client with the bearer token, or a signed-in console. */
export type Caller =
  | { readonly via: "bearer" }
  | { readonly via: "cookie"; readonly session: ConsoleCookie.Session & { readonly id: string } }

/** The authenticated caller of the current request. */
export class AdminCaller extends Context.Service<AdminCaller, Caller>()("@warden/daemon/AdminCaller") {}

/**
 * `Authorization: Bearer <admin.token>`, or the console's session cookie (then state-changing calls
 * also need the session's CSRF token in `x-warden-csrf` and the console's origin).
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

/** A recorded item version and its verdict. */
export const Decision = Schema.Struct({
  source: Text,
  reference: Text,
  version: Schema.Int,
  status: Text,
  contentType: Text,
  mode: Text,
  endpoint: Schema.NullOr(Text),
  /** The exact request body sent to the API (feedback sends it back unchanged). */
  request: Schema.NullOr(Text),
  verdict: Schema.Unknown,
  error: Schema.Unknown,
  segments: Schema.Number,
  analysedAt: Schema.NullOr(Text),
  createdAt: Schema.Number,
  deletedAt: Schema.NullOr(Text),
  /**
   * The source's rule that matched (`failureMode` for the failure mode's action), with or without
   * platform actions; null when none did (or, for a version recorded before the daemon kept it, when
   * its rule took no action).
   */
  rule: Schema.NullOr(Text)
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
  platformActions: Schema.Array(PlatformAction)
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
  sinks: Schema.Array(Schema.Struct({ sink: Text, backlog: Schema.Number, deadLetters: Schema.Number })),
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
  action: OptionalText
} as const

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
    success: Schema.Struct({ via: Schema.Literals(["bearer", "cookie"]), csrf: Schema.NullOr(Text) })
  }).annotate(OpenApi.Summary, "The caller, and the CSRF token a console sends on state-changing calls"),
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
        csrf: Text.annotate({ description: "The session's CSRF token (x-warden-csrf), as GET /api/session answers" })
      }),
      error: [Unauthenticated, CrossSiteRefused]
    }).annotate(OpenApi.Summary, "Signs a browser in with the admin token (sets the session cookie)")
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
    query: { source: OptionalText },
    success: Schema.Unknown.annotate({ description: "The counts erased, the references and the audit id" }),
    error: NotFound
  }).annotate(OpenApi.Summary, "Erases every stored item of an author"),
  HttpApiEndpoint.get("erasures", "/api/erasures", {
    query: { limit: OptionalText },
    success: Schema.Struct({ erasures: Schema.Array(Schema.Unknown) })
  }).annotate(OpenApi.Summary, "The audit of erasures, newest first")
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
  .add(ProbesGroup, DecisionsGroup, ConsoleGroup, GovernanceGroup, ClusterGroup)
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
