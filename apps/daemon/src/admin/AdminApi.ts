/**
 * The admin API, declared once as an Effect `HttpApi` (as `@warden/core` declares the Content Analysis
 * API): every route the console and operators call, with its query, path, body, success and error
 * schemas. `AdminServer` serves it with `HttpApiBuilder` (handlers in `AdminHandlers.ts` and the route modules it and `AdminServer` compose) and its
 * OpenAPI document at `/api/openapi.json`.
 *
 * Not in here, served beside it by `AdminServer` (`ConsoleRoutes.ts`), each for a reason HttpApi has
 * no words for: the console's files and the sign-in link (`GET /?token=`: a redirect setting a cookie
 * on the same path as the page), and the live decisions (`GET /api/decisions/stream`: server-sent
 * events with a `retry:` field and keep-alive comments, polled from the state store).
 *
 * The groups and their schemas live in a module each (`DecisionsApi`, `ReviewApi`, `GovernanceApi`,
 * `ConsoleApi`, `ProbesApi`, shared item schemas in `ItemSchemas`; the middlewares in `AdminSecurity`);
 * this module composes them.
 *
 * Query parameters are strings here; their meaning (integers in range, instants, cursors) is read by
 * the handlers with `RequestInput`, so each problem is a 400 naming the parameter. Any parameter the
 * endpoint does not declare is refused (`InputValidation`): a filter the API ignored would answer with
 * everything, which looks like a match.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { AdminAuth, InputValidation } from "./AdminSecurity.ts"
import { ConsoleGroup, SignInGroup } from "./ConsoleApi.ts"
import { DecisionsGroup } from "./DecisionsApi.ts"
import { GovernanceGroup } from "./GovernanceApi.ts"
import { ClusterGroup, HealthGroup, ProbesGroup } from "./ProbesApi.ts"
import { ReviewGroup } from "./ReviewApi.ts"

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
