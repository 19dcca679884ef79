/**
 * The admin HTTP API, bound to loopback by default, and the review console at `/` (`ConsoleRoutes`).
 * Every route but `/healthz` and the console's files needs `Authorization: Bearer <token>` or the
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
 * Every error is the one envelope of `AdminError`; bad input is a 4xx naming what is wrong, never a 500.
 * - `POST /api/feedback`: feedback by reference (`{ reference, version?, source?, classificationsToAdd?,
 *   classificationsToRemove?, notes?, confidence? }`), sent with the exact request stored for the item.
 */

/** The body of `POST /api/feedback`. */
export const FeedbackBody = Schema.Struct({
  reference: Schema.String.check(Schema.isNonEmpty(), RequestInput.noControlCharacters),
  version: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  source: Schema.optionalKey(Schema.String.check(RequestInput.noControlCharacters)),
  classificationsToAdd: Schema.optionalKey(Schema.Array(Schema.String)),
  classificationsToRemove: Schema.optionalKey(Schema.Array(Schema.String)),
  notes: Schema.optionalKey(Schema.String),
  confidence: Schema.optionalKey(Confidence)
})
const decodeFeedbackBody = Schema.decodeUnknownEffect(FeedbackBody, { errors: "all", onExcessProperty: "error" })
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Confidence } from "@warden/core"
import { RateLimiter } from "@warden/transport"
import { Context, Effect, Layer, Metric, Option, Redacted, Schema } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { SqlClient } from "effect/sql"
import * as Metrics from "../engine/Metrics.ts"
import { ambiguous, type FeedbackRefused, FeedbackService } from "../engine/FeedbackService.ts"
import { SourceStatus } from "../engine/SourceStatus.ts"
import * as StateStats from "../state/StateStats.ts"
import { StateStore } from "../state/StateStore.ts"
import { AdminRefused, json, refuse } from "./AdminError.ts"
import * as ConsoleRoutes from "./ConsoleRoutes.ts"
import * as ConsoleSession from "./ConsoleSession.ts"
import * as DecisionCursor from "./DecisionCursor.ts"
import * as Readiness from "./Readiness.ts"
import * as ProcessMetrics from "./ProcessMetrics.ts"
import * as RequestInput from "./RequestInput.ts"

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
  /** Extra routes under `/api/` (feedback by reference plugs in here). */
  readonly routes?: ReadonlyArray<AdminRoute>
}

/** An extra route: method, a path matcher, and a handler returning status + JSON body (or refusing, as every route). */
export interface AdminRoute {
  readonly method: string
  readonly match: (path: string) => Record<string, string> | undefined
  readonly handle: (
    params: Record<string, string>,
    body: unknown,
    query: URLSearchParams
  ) => Effect.Effect<{ readonly status: number; readonly body: unknown }, AdminRefused, StateStore | SourceStatus>
}

/** A probe `admin.public` may open: `healthz`, `readyz`, `metrics`. */
export type PublicProbe = "healthz" | "readyz" | "metrics"

/** The running admin API. */
export class AdminServer extends Context.Service<
  AdminServer,
  {
    readonly url: string
    /** The console's sign-in link, `URL/?token=TOKEN` (it holds the token: print it, never log it). */
    readonly consoleUrl: Redacted.Redacted<string>
  }
>()("@warden/daemon/AdminServer") {}

/** The filters `GET /api/decisions` and its stream share, as query parameter names. */
const DECISION_FILTERS = ["source", "type", "severity", "actionStatus", "q", "classification", "action"] as const

/** Reads the decision filters of a query (and refuses any parameter but those and `extra`). */
const decisionFilters = (params: URLSearchParams, extra: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const q = yield* RequestInput.query(params, [...DECISION_FILTERS, ...extra])
    return {
      query: q,
      filters: {
        source: q.get("source"),
        type: q.get("type"),
        severity: q.get("severity"),
        actionStatus: q.get("actionStatus"),
        text: q.get("q"),
        classification: q.get("classification"),
        action: q.get("action")
      }
    }
  })

const routes = (options: AdminOptions) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const status = yield* SourceStatus
    const limiter = yield* RateLimiter.RateLimiter
    const feedback = yield* FeedbackService
    const sessions = ConsoleSession.make(options.token)

    const readiness = Effect.gen(function* () {
      const storeProblem = yield* store.writable.pipe(
        Effect.as(undefined),
        Effect.catch((e) => Effect.succeed(e.message))
      )
      return Readiness.report({
        storeProblem,
        states: yield* status.all,
        unrecognised: yield* status.unrecognised,
        lastVerdicts: yield* status.lastVerdicts,
        now: Date.now()
      })
    })

    // Table sizes scan the database (dbstat reads every page): at most once a minute.
    let statsAt = 0
    const stateMetrics = Effect.gen(function* () {
      if (Date.now() - statsAt < 60_000) return
      statsAt = Date.now()
      const stats = yield* StateStats.read().pipe(Effect.provideService(SqlClient.SqlClient, store.sql))
      for (const t of stats.tables) {
        yield* Metric.update(Metric.withAttributes(Metrics.stateTableRows, { table: t.table }), t.rows)
        yield* Metric.update(Metric.withAttributes(Metrics.stateTableBytes, { table: t.table }), t.bytes)
      }
      yield* Metric.update(
        Metrics.oldestUnprocessedSeconds,
        stats.oldestUnprocessedAt === undefined ? 0 : (Date.now() - stats.oldestUnprocessedAt) / 1000
      )
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("state table stats failed", cause)))

    const metrics = Effect.gen(function* () {
      const states = yield* status.all
      for (const [source, state] of states) {
        if (state.lastCommit !== undefined) {
          yield* Metric.update(
            Metric.withAttributes(Metrics.checkpointLag, { source }),
            (Date.now() - state.lastCommit) / 1000
          )
        }
      }
      yield* stateMetrics
      yield* ProcessMetrics.update
      return yield* PrometheusMetrics.format()
    })

    /** The routes proper: input problems fail with `AdminRefused`, answered as the envelope. */
    const route = (req: IncomingMessage, res: ServerResponse, url: URL, who: ConsoleRoutes.Caller) =>
      Effect.gen(function* () {
        const path = url.pathname
        if (req.method === "GET" && path === "/readyz") {
          yield* RequestInput.query(url.searchParams, [])
          const report = yield* readiness
          return json(res, report.ready ? 200 : 503, report)
        }
        if (req.method === "GET" && path === "/metrics") {
          yield* RequestInput.query(url.searchParams, [])
          const text = yield* metrics
          res.writeHead(200, { "content-type": "text/plain; version=0.0.4" })
          return res.end(text)
        }
        if (req.method === "GET" && path === "/api/quota") {
          yield* RequestInput.query(url.searchParams, [])
          // The transport limiter's view per endpoint: configured, learnt (from 429s) and enforced rates.
          const endpoints = yield* limiter.statusAll
          return json(res, 200, {
            endpoints: endpoints.map((e) => ({
              endpoint: e.endpoint,
              configuredRate: e.configuredRate ?? null,
              learntRate: e.learntRate ?? null,
              currentRate: e.currentRate ?? null,
              recent429s: e.recent429s
            }))
          })
        }
        if (req.method === "GET" && path === "/api/dead-letters") {
          // Events sources emitted that the daemon could not take (skipped; the source went on).
          const q = yield* RequestInput.query(url.searchParams, ["source", "limit"])
          const limit = yield* RequestInput.int("limit", q.get("limit"), { min: 1, max: 1000, fallback: 100 })
          const deadLetters = yield* store.sourceDeadLetters({ source: q.get("source"), limit })
          return json(res, 200, { deadLetters })
        }
        if (req.method === "GET" && path === "/api/decisions") {
          const { query: q, filters } = yield* decisionFilters(url.searchParams, ["since", "limit", "cursor"])
          const limit = yield* RequestInput.int("limit", q.get("limit"), { min: 1, max: 1000, fallback: 100 })
          const after = yield* DecisionCursor.decode(q.get("cursor"))
          const rows = yield* store.decisions({
            ...filters,
            since: yield* RequestInput.instant("since", q.get("since")),
            limit: limit + 1,
            after
          })
          const decisions = rows.slice(0, limit)
          const last = decisions.at(-1)
          return json(res, 200, {
            decisions,
            // More rows: pass it back as `cursor` for the next page (same filters).
            nextCursor: rows.length > limit && last !== undefined ? DecisionCursor.encode(last) : null
          })
        }
        const answered = yield* ConsoleRoutes.privateRoutes(req, res, url, who, {
          sessions,
          store,
          sinks: options.sinks ?? [],
          filters: (params, extra) => Effect.map(decisionFilters(params, extra), (r) => r.filters)
        })
        if (answered) return
        const one = /^\/api\/decisions\/(.+)$/.exec(path)
        if (req.method === "GET" && one !== null) {
          const reference = yield* RequestInput.pathSegment("reference", one[1]!)
          const q = yield* RequestInput.query(url.searchParams, ["source"])
          const source = q.get("source")
          if (source === undefined) {
            const sources = yield* store.sourcesOf(reference)
            if (sources.length > 1) return yield* fromFeedback(ambiguous(reference, sources))
          }
          const versions = yield* store.decision(reference, source)
          if (versions.length === 0) {
            return yield* new AdminRefused({
              status: 404,
              code: "NOT_FOUND",
              message: `no decision for ${reference}${source === undefined ? "" : ` of source ${source}`}`
            })
          }
          const actions = yield* store.actionsOf(reference, source)
          const sent = yield* store.feedbackOf(reference, source)
          // The latest version's source event: author, permalink, post (what the console shows).
          const row = yield* store.item(versions[0]!.source, reference, versions[0]!.version)
          const event = Option.match(row, { onNone: () => null, onSome: (r) => JSON.parse(r.event) as unknown })
          return json(res, 200, {
            reference,
            source: versions[0]!.source,
            event,
            latest: versions[0],
            versions,
            actions,
            feedback: sent
          })
        }
        if (req.method === "POST" && path === "/api/feedback") {
          yield* RequestInput.query(url.searchParams, [])
          const raw = yield* RequestInput.jsonBody(req)
          const body = yield* decodeFeedbackBody(raw).pipe(
            Effect.mapError(
              (e) =>
                new AdminRefused({
                  status: 400,
                  code: "BAD_REQUEST",
                  message: `the body is not a feedback: ${e.message.replace(/\s*\n\s*/gu, "; ")}`
                })
            )
          )
          const { reference, version, source, ...input } = body
          const sent = yield* feedback
            .send({ reference, version, source, origin: "manual", input })
            .pipe(Effect.mapError(fromFeedback))
          return json(res, 200, sent)
        }
        for (const extra of options.routes ?? []) {
          const params = req.method === extra.method ? extra.match(path) : undefined
          if (params === undefined) continue
          const body = yield* RequestInput.jsonBody(req)
          const answer = yield* extra.handle(params, body, url.searchParams)
          return json(res, answer.status, answer.body)
        }
        return yield* new AdminRefused({ status: 404, code: "NOT_FOUND", message: `no route ${req.method} ${path}` })
      }).pipe(Effect.provideService(StateStore, store), Effect.provideService(SourceStatus, status))

    return (req: IncomingMessage, res: ServerResponse): Effect.Effect<void> =>
      Effect.gen(function* () {
        // A request line Node accepted but URL cannot parse is the client's fault, not ours.
        const url = URL.canParse(req.url ?? "/", "http://admin") ? new URL(req.url ?? "/", "http://admin") : undefined
        if (url === undefined) return yield* new AdminRefused({ status: 400, code: "BAD_REQUEST", message: "bad URL" })
        if (req.method === "GET" && url.pathname === "/healthz") return json(res, 200, { status: "ok" })
        if (yield* ConsoleRoutes.publicRoutes(req, res, url, sessions)) return
        const probe = url.pathname.slice(1)
        if (req.method === "GET" && (probe === "readyz" || probe === "metrics") && options.public?.includes(probe))
          return yield* route(req, res, url, { via: "bearer" })
        const who = ConsoleRoutes.caller(req, options.token, sessions)
        if (who === undefined) {
          return yield* new AdminRefused({
            status: 401,
            code: "UNAUTHENTICATED",
            message: "missing or wrong bearer token (Authorization: Bearer <admin.token>), and no console session"
          })
        }
        yield* ConsoleRoutes.guardCrossSite(req, who)
        return yield* route(req, res, url, who)
      }).pipe(
        Effect.catchTag("AdminRefused", (refused) =>
          Effect.sync(() => {
            if (res.headersSent) return
            const headers: Record<string, string> = {}
            if (refused.status === 401) headers["www-authenticate"] = "Bearer"
            // The rest of an oversized body is not read: the connection closes after the answer.
            if (refused.status === 413) headers.connection = "close"
            refuse(res, refused, headers)
          })
        ),
        Effect.catchCause((cause) =>
          Effect.sync(() => {
            if (!res.headersSent)
              json(res, 500, { error: { code: "INTERNAL", message: "internal error; see the daemon's log" } })
          }).pipe(Effect.andThen(Effect.logError("admin request failed", cause)))
        )
      ) as Effect.Effect<void>
  })

/** A feedback refusal as the admin envelope. */
const fromFeedback = (refused: FeedbackRefused): AdminRefused =>
  new AdminRefused({
    status: refused.status,
    code: refused.code,
    message: refused.reason,
    ...(refused.sources === undefined ? {} : { sources: refused.sources })
  })

/** Starts the admin API for the layer's lifetime. */
export const layer = (options: AdminOptions) =>
  Layer.effect(
    AdminServer,
    Effect.gen(function* () {
      const handle = yield* routes(options)
      const context = yield* Effect.context<never>()
      const server = createServer((req, res) => {
        Effect.runForkWith(context)(handle(req, res))
      })
      yield* Effect.acquireRelease(
        Effect.callback<void, Error>((resume) => {
          server.once("error", (e) => resume(Effect.fail(e)))
          server.listen(options.port, options.host, () => resume(Effect.void))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      ).pipe(Effect.orDie)
      const address = server.address() as AddressInfo
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address
      const url = `http://${host}:${address.port}`
      return {
        url,
        consoleUrl: Redacted.make(`${url}/?token=${encodeURIComponent(Redacted.value(options.token))}`, {
          label: "console link"
        })
      }
    })
  )
