/**
 * The admin HTTP API, bound to loopback by default. Every route but `/healthz` needs
 * `Authorization: Bearer <token>`.
 *
 * - `GET /healthz`: the process is up.
 * - `GET /readyz`: 200 when the state store is writable and every source is running; 503 with the
 *   reasons otherwise (a source paused by a refused key, an upstream down).
 * - `GET /metrics`: Prometheus text (items in/out, verdicts, API latency, retries, 429s, backlog, lag).
 * - `GET /api/decisions?source=&since=&classification=&action=&limit=`, `GET /api/decisions/{reference}`
 *   (every version, the request sent, the actions and the feedback).
 * - `POST /api/feedback`: feedback by reference (`{ reference, version?, source?, classificationsToAdd?,
 *   classificationsToRemove?, notes?, confidence? }`), sent with the exact request stored for the item.
 */

/** The body of `POST /api/feedback`. */
export const FeedbackBody = Schema.Struct({
  reference: Schema.String.check(Schema.isNonEmpty()),
  version: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  source: Schema.optionalKey(Schema.String),
  classificationsToAdd: Schema.optionalKey(Schema.Array(Schema.String)),
  classificationsToRemove: Schema.optionalKey(Schema.Array(Schema.String)),
  notes: Schema.optionalKey(Schema.String),
  confidence: Schema.optionalKey(Confidence)
})
const decodeFeedbackBody = Schema.decodeUnknownEffect(FeedbackBody, { errors: "all", onExcessProperty: "error" })
import { timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Confidence } from "@warden/core"
import { RateLimiter } from "@warden/transport"
import { Context, Effect, Layer, Metric, Redacted, Schema } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { SqlClient } from "effect/sql"
import * as Metrics from "../engine/Metrics.ts"
import { ambiguous, FeedbackService } from "../engine/FeedbackService.ts"
import { SourceStatus } from "../engine/SourceStatus.ts"
import * as StateStats from "../state/StateStats.ts"
import { StateStore } from "../state/StateStore.ts"
import * as Readiness from "./Readiness.ts"

/** Where the admin API listens and the token it wants. */
export interface AdminOptions {
  readonly host: string
  readonly port: number
  readonly token: Redacted.Redacted<string>
  /** Extra routes under `/api/` (feedback by reference plugs in here). */
  readonly routes?: ReadonlyArray<AdminRoute>
}

/** An extra route: method, a path matcher, and a handler returning status + JSON body. */
export interface AdminRoute {
  readonly method: string
  readonly match: (path: string) => Record<string, string> | undefined
  readonly handle: (
    params: Record<string, string>,
    body: unknown,
    query: URLSearchParams
  ) => Effect.Effect<{ readonly status: number; readonly body: unknown }, never, StateStore | SourceStatus>
}

/** The running admin API. */
export class AdminServer extends Context.Service<AdminServer, { readonly url: string }>()(
  "@warden/daemon/AdminServer"
) {}

const json = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const authorised = (req: IncomingMessage, token: Redacted.Redacted<string>): boolean => {
  const header = req.headers.authorization
  const match = typeof header === "string" ? /^Bearer +(\S+)$/.exec(header) : null
  if (match === null) return false
  const given = Buffer.from(match[1]!)
  const expected = Buffer.from(Redacted.value(token))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const readBody = (req: IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (c: Buffer) => {
      size += c.length
      if (size > 1_000_000) {
        reject(new Error("body over 1 MB"))
        req.destroy()
      } else chunks.push(c)
    })
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      if (text.trim() === "") return resolve(undefined)
      try {
        resolve(JSON.parse(text))
      } catch {
        reject(new Error("the body is not JSON"))
      }
    })
    req.on("error", reject)
  })

const intParam = (value: string | null, fallback: number, max: number): number => {
  const n = value === null ? Number.NaN : Number.parseInt(value, 10)
  return Number.isFinite(n) && n > 0 ? Math.min(n, max) : fallback
}

const sinceParam = (value: string | null): number | undefined => {
  if (value === null) return undefined
  const n = Number(value)
  if (Number.isFinite(n)) return n
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : ms
}

const routes = (options: AdminOptions) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const status = yield* SourceStatus
    const limiter = yield* RateLimiter.RateLimiter
    const feedback = yield* FeedbackService

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
      const backlog = yield* store.outboxBacklog.pipe(Effect.orElseSucceed(() => []))
      for (const row of backlog)
        yield* Metric.update(Metric.withAttributes(Metrics.backlog, { sink: row.sink }), Number(row.n))
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
      return yield* PrometheusMetrics.format()
    })

    return (req: IncomingMessage, res: ServerResponse): Effect.Effect<void> =>
      Effect.gen(function* () {
        const url = new URL(req.url ?? "/", "http://admin")
        const path = url.pathname
        if (req.method === "GET" && path === "/healthz") return json(res, 200, { status: "ok" })
        if (!authorised(req, options.token)) {
          res.setHeader("www-authenticate", "Bearer")
          return json(res, 401, { error: "missing or wrong bearer token" })
        }
        if (req.method === "GET" && path === "/readyz") {
          const report = yield* readiness
          return json(res, report.ready ? 200 : 503, report)
        }
        if (req.method === "GET" && path === "/metrics") {
          const text = yield* metrics
          res.writeHead(200, { "content-type": "text/plain; version=0.0.4" })
          return res.end(text)
        }
        if (req.method === "GET" && path === "/api/quota") {
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
        if (req.method === "GET" && path === "/api/decisions") {
          const q = url.searchParams
          const decisions = yield* store.decisions({
            source: q.get("source") ?? undefined,
            since: sinceParam(q.get("since")),
            classification: q.get("classification") ?? undefined,
            action: q.get("action") ?? undefined,
            limit: intParam(q.get("limit"), 100, 1000)
          })
          return json(res, 200, { decisions })
        }
        const one = /^\/api\/decisions\/(.+)$/.exec(path)
        if (req.method === "GET" && one !== null) {
          const reference = decodeURIComponent(one[1]!)
          const source = url.searchParams.get("source") ?? undefined
          if (source === undefined) {
            const sources = yield* store.sourcesOf(reference)
            if (sources.length > 1) {
              const refused = ambiguous(reference, sources)
              return json(res, 409, { error: { code: refused.code, reason: refused.reason, sources } })
            }
          }
          const versions = yield* store.decision(reference, source)
          if (versions.length === 0)
            return json(res, 404, {
              error: `no decision for ${reference}${source === undefined ? "" : ` of source ${source}`}`
            })
          const actions = yield* store.actionsOf(reference, source)
          const sent = yield* store.feedbackOf(reference, source)
          return json(res, 200, {
            reference,
            source: versions[0]!.source,
            latest: versions[0],
            versions,
            actions,
            feedback: sent
          })
        }
        if (req.method === "POST" && path === "/api/feedback") {
          const raw = yield* Effect.tryPromise(() => readBody(req)).pipe(Effect.orElseSucceed(() => Symbol.for("bad")))
          if (typeof raw === "symbol")
            return json(res, 400, { error: { code: "BAD_REQUEST", reason: "the body is not JSON" } })
          const body = yield* decodeFeedbackBody(raw).pipe(Effect.result)
          if (body._tag === "Failure") {
            return json(res, 400, { error: { code: "BAD_REQUEST", reason: body.failure.message } })
          }
          const { reference, version, source, ...input } = body.success
          const result = yield* feedback
            .send({ reference, version, source, origin: "manual", input })
            .pipe(Effect.result)
          return result._tag === "Success"
            ? json(res, 200, result.success)
            : json(res, result.failure.status, {
                error: {
                  code: result.failure.code,
                  reason: result.failure.reason,
                  ...(result.failure.sources === undefined ? {} : { sources: result.failure.sources })
                }
              })
        }
        for (const route of options.routes ?? []) {
          const params = req.method === route.method ? route.match(path) : undefined
          if (params === undefined) continue
          const body = yield* Effect.tryPromise(() => readBody(req))
          const answer = yield* route.handle(params, body, url.searchParams)
          return json(res, answer.status, answer.body)
        }
        return json(res, 404, { error: `no route ${req.method} ${path}` })
      }).pipe(
        Effect.catchCause((cause) =>
          Effect.sync(() => {
            if (!res.headersSent) json(res, 500, { error: "internal error" })
          }).pipe(Effect.andThen(Effect.logError("admin request failed", cause)))
        ),
        Effect.provideService(StateStore, store),
        Effect.provideService(SourceStatus, status),
        Effect.provideService(FeedbackService, feedback)
      ) as Effect.Effect<void>
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
      return { url: `http://${host}:${address.port}` }
    })
  )
