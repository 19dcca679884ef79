/**
 * The admin API's groups for the review console besides decisions and review: the session and its
 * sign-in form, the pipeline's counters and a sink's replay. Composed into `AdminApi`.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CrossSiteRefused, NotFound, Unauthenticated } from "./AdminError.ts"
import { InputValidation } from "./AdminSecurity.ts"

const Text = Schema.String

/** A moderator's role. */
export const Role = Schema.Literals(["viewer", "moderator", "admin"])

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
