/**
 * The routes the admin server serves beside its `HttpApi` (`AdminApi.ts`), each because HttpApi has no
 * words for it:
 *
 * - the console's files (`/`, `/index.html`, `/console/app.js`, `/console/app.css`): static bytes with
 *   their own security headers, public (the page shows no data until signed in);
 * - `GET /?token=TOKEN`, the printed link (the shared token's, or a moderator's from `warden moderator
 *   add`): on the page's own path, it sets the session cookie of that moderator and redirects to `/`
 *   (the token leaves the address bar); a wrong token redirects to `/?signin=refused`;
 * - `GET /api/decisions/stream?<filters of /api/decisions>`: new decisions as server-sent events, with
 *   a `retry:` field and keep-alive comments (`DecisionStream`), authenticated as the API is;
 * - `GET /api/review/stream?source=&kind=`: the review queue's rows `added` and `decided`
 *   (`ReviewStream`), the same way.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { DecisionStore } from "../state/DecisionStore.ts"
import { DecisionFilters } from "./DecisionsApi.ts"
import { checkedFilters } from "./DecisionFilterCheck.ts"
import * as DecisionView from "./DecisionView.ts"
import { ActionStore } from "../state/ActionStore.ts"
import { ItemStore } from "../state/ItemStore.ts"
import { KINDS, ReviewStore } from "../state/ReviewStore.ts"
import * as ReviewRoutes from "./ReviewRoutes.ts"
import * as ReviewStream from "./ReviewStream.ts"
import * as ReviewView from "./ReviewView.ts"
import { authenticate } from "./AdminMiddleware.ts"
import { type AdminRefused, envelopeResponse } from "./AdminError.ts"
import * as ConsoleAssets from "./ConsoleAssets.ts"
import type * as ConsoleSession from "./ConsoleSession.ts"
import * as DecisionStream from "./DecisionStream.ts"
import { Moderators } from "./Moderators.ts"
import * as RequestInput from "./RequestInput.ts"

/** A refusal of a route outside the HttpApi, as the same envelope. */
const refused = (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, AdminRefused>) =>
  Effect.catchTag(effect, "AdminRefused", (r) => Effect.succeed(envelopeResponse(r)))

/** The routes, for the server's sessions, the configured rule names and each source's connector actions. */
export const layer = (options: {
  readonly sessions: ConsoleSession.Sessions
  readonly rules: ReadonlyArray<string>
  readonly platform: DecisionView.PlatformActions
  /** What the review queue's rows show of each source. */
  readonly review: ReadonlyMap<string, ReviewView.SourceFacts>
}) => {
  const { sessions } = options
  const page = HttpRouter.add(
    "GET",
    "/",
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(request.url, "http://admin")
      if (!url.searchParams.has("token")) return ConsoleAssets.response("index.html")
      const moderator = yield* (yield* Moderators).identify(url.searchParams.get("token") ?? "").pipe(Effect.orDie)
      if (moderator === undefined)
        return HttpServerResponse.empty({
          status: 303,
          headers: { location: "/?signin=refused", ...ConsoleAssets.SECURITY_HEADERS }
        })
      const { setCookie } = sessions.open(moderator)
      return HttpServerResponse.empty({
        status: 303,
        headers: { location: "/", "set-cookie": setCookie, ...ConsoleAssets.SECURITY_HEADERS }
      })
    })
  )
  const files = Object.entries(ConsoleAssets.PATHS)
    .filter(([path]) => path !== "/")
    .map(([path, file]) =>
      HttpRouter.add(
        "GET",
        path as `/${string}`,
        Effect.sync(() => ConsoleAssets.response(file))
      )
    )
  const stream = HttpRouter.add(
    "GET",
    "/api/decisions/stream",
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const store = yield* DecisionStore
      const reviews = yield* ReviewStore
      const moderators = yield* Moderators
      return yield* refused(
        Effect.gen(function* () {
          yield* authenticate(request, sessions, moderators)
          const url = new URL(request.url, "http://admin")
          const q = yield* RequestInput.query(url.searchParams, Object.keys(DecisionFilters))
          const filters = yield* checkedFilters(Object.fromEntries(q), options.rules)
          return yield* DecisionStream.response(store, filters, (rows) =>
            DecisionView.page(reviews, rows, options.platform)
          ).pipe(Effect.orDie)
        })
      )
    })
  )
  const reviewStream = HttpRouter.add(
    "GET",
    "/api/review/stream",
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const reviews = yield* ReviewStore
      const stores = { items: yield* ItemStore, actions: yield* ActionStore }
      const moderators = yield* Moderators
      return yield* refused(
        Effect.gen(function* () {
          yield* authenticate(request, sessions, moderators)
          const url = new URL(request.url, "http://admin")
          const q = yield* RequestInput.query(url.searchParams, ["source", "kind"])
          const kind = yield* ReviewRoutes.oneOf("kind", q.get("kind"), KINDS)
          return yield* ReviewStream.response(reviews, { source: q.get("source"), kind }, (rows) =>
            ReviewView.page(stores, rows, options.review)
          ).pipe(Effect.orDie)
        })
      )
    })
  )
  return Layer.mergeAll(page, stream, reviewStream, ...files)
}
