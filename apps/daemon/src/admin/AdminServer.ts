/**
 * The admin HTTP API, bound to loopback by default, and the review console at `/`: the API declared
 * once in `AdminApi.ts` and served here with `HttpApiBuilder` (its OpenAPI document at
 * `GET /api/openapi.json`), the console's files, sign-in link and live stream beside it
 * (`ConsoleRoutes.ts`), on one listener with one token.
 * Every route but `/healthz`, `/api/openapi.json` (it describes the routes, it holds no data), the
 * console's files and its sign-in needs `Authorization: Bearer <token>` or the
 * console's session cookie (with its CSRF token on state-changing calls); `/readyz` and `/metrics` too
 * unless `admin.public` lists them.
 *
 * - `GET /healthz`: the process is up.
 * - `GET /readyz`: 200 when the daemon can make progress, 503 when it cannot (state store, or the API
 *   failing for every source); per-source problems are listed either way (`Readiness`).
 * - `GET /metrics`: Prometheus text (items in/out, verdicts, API latency, retries, 429s, backlog, lag).
 * - `GET /api/decisions?source=&type=&severity=&actionStatus=&q=&since=&classification=&action=&limit=&cursor=`
 *   (newest first, a page and its
 *   `nextCursor`), `GET /api/decisions/{reference}?source=` (every version, the request sent, the
 *   actions and the feedback; 409 when several sources recorded the reference and none is named).
 * - `GET /api/dead-letters?source=&limit=`: events sources emitted that the daemon could not take (a
 *   reference over 256 characters, a checkpoint that is not JSON, content failing the schema), each
 *   with its reference, field, reason, the event (cut at 4 KiB), how often it came and when; newest first.
 *
 * - `POST /api/feedback`: feedback by reference (`{ reference, version?, source?, classificationsToAdd?,
 *   classificationsToRemove?, notes?, confidence? }`), sent with the exact request stored for the item.
 * - the console's (`/api/session`, `/api/pipeline`, `/api/sinks/{sink}/replay`), policy tests and
 *   erasure (`GovernanceRoutes`), `/api/cluster` (`ClusterRoute`): see `AdminApi.ts`.
 *
 * Every error is the one envelope of `AdminError`, also for unknown routes and faults (a 500 is a
 * fault of the daemon, logged; bad input is a 4xx naming what is wrong).
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { RateLimiter } from "@warden/transport"
import { ByteSize, Cause, Context, Deferred, Effect, Layer, Redacted, type Types } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer, type HttpServerError, type HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { NetAddress } from "effect/net"
import type { Rule } from "../domain/Rule.ts"
import * as StrikePolicy from "../domain/StrikePolicy.ts"
import { AdminApi } from "./AdminApi.ts"
import { AdminRefused, badParameter, envelopeResponse } from "./AdminError.ts"
import * as AdminHandlers from "./AdminHandlers.ts"
import type { SourceFacts } from "./DecisionsHandlers.ts"
import { authLayer, badlyEncodedParameter, inputLayer, type PublicProbe, tooLarge } from "./AdminMiddleware.ts"
import * as ClusterRoute from "./ClusterRoute.ts"
import * as ConsoleRoutes from "./ConsoleRoutes.ts"
import * as ConsoleSession from "./ConsoleSession.ts"
import * as GovernanceRoutes from "./GovernanceRoutes.ts"
import * as ReviewRoutes from "./ReviewRoutes.ts"
import type * as ReviewView from "./ReviewView.ts"
import { type ConfiguredModerator, Moderators } from "./Moderators.ts"
import { MAX_BODY_BYTES } from "./RequestInput.ts"
import { Stopping } from "./Stopping.ts"

/** Where the admin API listens and the token it wants. */
export interface AdminOptions {
  readonly host: string
  readonly port: number
  readonly token: Redacted.Redacted<string>
  /**
   * Probes served without the token (`admin.public`), for load balancers, Kubernetes probes and
   * Prometheus scrapers that carry no secret. `/healthz` is always public: it says only "up".
   */
  readonly public?: ReadonlyArray<PublicProbe> | undefined
  /** The configured sinks (the console's pipeline page lists each, empty queues too). */
  readonly sinks?: ReadonlyArray<string>
  /** The configured rules of each source (what `POST /api/policy/test` replays without `rules`). */
  readonly rules?: ReadonlyMap<string, ReadonlyArray<Rule>>
  /** Each source's connector action kinds and automatic feedback (the console's Restore / Remove). */
  readonly sources?: ReadonlyMap<string, SourceFacts>
  /** The named moderators of the config file (`moderators`); those added by the CLI are in the state. */
  readonly moderators?: ReadonlyArray<ConfiguredModerator> | undefined
  /** What the review routes know of the sources and the strike policy. */
  readonly review?: ReviewRoutes.ReviewOptions | undefined
}

export type { PublicProbe }

/** The running admin API. */
export class AdminServer extends Context.Service<
  AdminServer,
  {
    readonly url: string
    /** The console's sign-in link, `URL/?token=TOKEN` (it holds the token: print it, never log it). */
    readonly consoleUrl: Redacted.Redacted<string>
  }
>()("@warden/daemon/AdminServer") {}

/** Every route of the API, as method and path template. */
const ROUTES = Object.values(AdminApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((e) => ({ method: e.method, path: e.path }))
)

const internal = new AdminRefused({ status: 500, code: "INTERNAL", message: "internal error; see the daemon's log" })

/**
 * Around every route: bodies are read up to 1 MiB; what no route answers is the envelope too (an
 * unknown route or method: 404; a body over the limit without a length announced: 413; a fault: 500,
 * logged).
 */
const envelopes = HttpRouter.middleware(
  (httpEffect): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled> =>
    httpEffect.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(BigInt(MAX_BODY_BYTES))),
      Effect.catchCause((cause) => {
        const failure = cause.reasons.find(Cause.isFailReason)?.error ?? cause.reasons.find(Cause.isDieReason)?.defect
        const reason = (failure as Partial<HttpServerError.HttpServerError> | undefined)?.reason
        if (reason?._tag === "RouteNotFound") {
          const { method } = reason.request
          const path = new URL(reason.request.url, "http://admin").pathname
          const parameter = badlyEncodedParameter(ROUTES, method, path)
          return Effect.succeed(
            envelopeResponse(
              parameter === undefined
                ? new AdminRefused({ status: 404, code: "NOT_FOUND", message: `no route ${method} ${path}` })
                : badParameter(parameter, "is not valid percent-encoding")
            )
          )
        }
        if (reason?._tag === "RequestParseError" && reason.reason === "BodyTooLarge")
          return Effect.succeed(envelopeResponse(tooLarge))
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
        return Effect.logError("admin request failed", cause).pipe(Effect.as(envelopeResponse(internal)))
      })
    ),
  { global: true }
)

/**
 * The transport's rate limiter, which {@link layer} needs; named here so that the package's declaration
 * file can name it (`RateLimiter.ts` is not an export path of `@warden/transport`: without a name in
 * this file the declaration build fails with TS2883).
 */
export type NeededRateLimiter = RateLimiter.RateLimiter

/**
 * How long a stopping admin server waits for the requests it is answering before cutting them (the
 * platform's default is 20 s): within the daemon's stop deadline, which a request on a lost database
 * would otherwise outlast. The live streams end at once (Stopping.ts), so this is for the others.
 */
const GRACEFUL_SHUTDOWN = "2 seconds"

/** Starts the admin API for the layer's lifetime. */
export const layer = (options: AdminOptions) => {
  const sessions = ConsoleSession.make()
  const ruleNames = [...(options.rules ?? new Map<string, ReadonlyArray<Rule>>()).values()].flatMap((list) =>
    list.map((r) => r.name)
  )
  const api = HttpApiBuilder.layer(AdminApi, { openapiPath: "/api/openapi.json" }).pipe(
    Layer.provide([
      AdminHandlers.layer({
        sessions,
        sinks: options.sinks ?? [],
        sources: options.sources ?? new Map(),
        rules: ruleNames
      }),
      GovernanceRoutes.layer({
        rules: options.rules ?? new Map(),
        connectors: new Map(
          [...(options.review?.sources ?? new Map<string, ReviewView.SourceFacts>())].map(([id, f]) => [
            id,
            { type: f.platform, actions: f.actions }
          ])
        ),
        sinks: options.sinks ?? [],
        halfLifeMillis: options.review?.halfLifeMillis ?? StrikePolicy.DEFAULT_HALF_LIFE_MILLIS
      }),
      ClusterRoute.layer,
      ReviewRoutes.layer(
        options.review ?? { sources: new Map(), halfLifeMillis: StrikePolicy.DEFAULT_HALF_LIFE_MILLIS }
      )
    ]),
    Layer.provide([authLayer({ sessions, public: options.public ?? [] }), inputLayer])
  )
  const app = Layer.mergeAll(
    api,
    ConsoleRoutes.layer({
      sessions,
      rules: ruleNames,
      platform: new Map([...(options.sources ?? new Map())].map(([id, f]) => [id, f.actions])),
      review: options.review?.sources ?? new Map()
    }),
    envelopes
  )
  const served = HttpRouter.serve(app, { disableListenLog: true, disableLogger: true }).pipe(
    Layer.provideMerge(
      NodeHttpServer.layer(() => createServer(), {
        port: options.port,
        host: options.host,
        gracefulShutdownTimeout: GRACEFUL_SHUTDOWN
      })
    ),
    Layer.provide(Moderators.layer(options.token, options.moderators ?? []))
  )
  return Layer.effect(
    AdminServer,
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      // Released before the listener (built after it): the live streams end first, so its close
      // does not wait for them.
      const stopping = yield* Stopping
      yield* Effect.addFinalizer(() => Deferred.succeed(stopping, undefined))
      const url = NetAddress.formatUrlUnsafe(server.address, "http")
      return {
        url,
        consoleUrl: Redacted.make(`${url}/?token=${encodeURIComponent(Redacted.value(options.token))}`, {
          label: "console link"
        })
      }
    })
  ).pipe(Layer.provide(served), Layer.provide(Stopping.layer))
}
