/**
 * Who may call the admin API and how its input is checked: the authenticated caller (`AdminCaller`) and
 * the two `HttpApi` middlewares every protected group takes (`AdminAuth`, `InputValidation`). Kept apart
 * from the groups so `AdminApi`, the group modules and `AdminMiddleware` (which implements them) share them.
 */
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { BadRequest, CrossSiteRefused, PayloadTooLarge, Unauthenticated, UnsupportedMediaType } from "./AdminError.ts"
import * as ConsoleCookie from "./ConsoleCookie.ts"
import type { Moderator } from "./ModeratorRole.ts"

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
