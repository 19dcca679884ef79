/**
 * The handlers of the admin API's groups (`AdminApi.ts`) but governance and cluster, which have their
 * own modules: health and probes, decisions and feedback by reference, the console's session,
 * pipeline and replay, and the sign-in form. Input problems fail with `AdminRefused`, answered as the
 * envelope with their status (`AdminError.answering`).
 */
import { ANALYSIS_TYPES, SEVERITIES } from "@warden/core"
import { RateLimiter } from "@warden/transport"
import { Clock, Effect, Layer, Metric, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { PrometheusMetrics } from "effect/observability"
import { SqlClient } from "effect/sql"
import { ambiguous, type FeedbackRefused, FeedbackService } from "../engine/FeedbackService.ts"
import * as Metrics from "../engine/Metrics.ts"
import { SourceStatus } from "../engine/SourceStatus.ts"
import * as DeadLetterReplay from "../state/DeadLetterReplay.ts"
import * as StateStats from "../state/StateStats.ts"
import type { ActionRow } from "../domain/Action.ts"
import { ActionStore } from "../state/ActionStore.ts"
import { CheckpointStore } from "../state/CheckpointStore.ts"
import { type Decision, DecisionStore } from "../state/DecisionStore.ts"
import { FeedbackStore } from "../state/FeedbackStore.ts"
import { ItemStore } from "../state/ItemStore.ts"
import { OutboxStore } from "../state/OutboxStore.ts"
import { ReviewStore } from "../state/ReviewStore.ts"
import { SourceErrorStore } from "../state/SourceErrorStore.ts"
import { AdminApi } from "./AdminApi.ts"
import { AdminCaller } from "./AdminSecurity.ts"
import type { DecisionFilters } from "./DecisionsApi.ts"
import { NotReady } from "./ProbesApi.ts"
import { AdminRefused, answering } from "./AdminError.ts"
import * as ConsoleSession from "./ConsoleSession.ts"
import * as DecisionCursor from "./DecisionCursor.ts"
import * as ModeratorAction from "./ModeratorAction.ts"
import { Moderators } from "./Moderators.ts"
import * as PipelineView from "./PipelineView.ts"
import * as ProcessMetrics from "./ProcessMetrics.ts"
import * as Readiness from "./Readiness.ts"
import * as RequestInput from "./RequestInput.ts"
import * as ReviewRoutes from "./ReviewRoutes.ts"
import * as DecisionView from "./DecisionView.ts"
import * as ReviewView from "./ReviewView.ts"

/** A feedback refusal as the admin envelope. */
export const fromFeedback = (refused: FeedbackRefused): AdminRefused =>
  new AdminRefused({
    status: refused.status,
    code: refused.code,
    message: refused.reason,
    ...(refused.sources === undefined ? {} : { sources: refused.sources })
  })

/** The decision filters of a decoded query, as the state store takes them. */
export const decisionFilters = (q: { readonly [K in keyof typeof DecisionFilters]?: string }) => ({
  source: q.source,
  type: q.type,
  severity: q.severity,
  actionStatus: q.actionStatus,
  text: q.q,
  classification: q.classification,
  action: q.action,
  author: q.author,
  rule: q.rule
})

/** The action statuses a platform action can be in. */
export const ACTION_STATUSES = ["pending", "done", "failed", "would-do"] as const

/**
 * {@link decisionFilters}, with the values of the closed filters checked: a `type`, `severity`,
 * `actionStatus` or `rule` that cannot match anything (`type=hateful`) is a 400 naming the values
 * allowed, not an empty list that looks like "no such items". `rules` are the configured rule names.
 */
export const checkedFilters = (
  q: { readonly [K in keyof typeof DecisionFilters]?: string },
  rules: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    yield* ReviewRoutes.oneOf("type", q.type, ANALYSIS_TYPES)
    yield* ReviewRoutes.oneOf("severity", q.severity, SEVERITIES)
    yield* ReviewRoutes.oneOf("actionStatus", q.actionStatus, ACTION_STATUSES)
    yield* ReviewRoutes.oneOf("rule", q.rule, [...new Set([...rules, "failureMode"])])
    return decisionFilters(q)
  })

/** `/healthz`. */
export const health = HttpApiBuilder.group(AdminApi, "health", (handlers) =>
  handlers.handle("healthz", () => Effect.succeed({ status: "ok" as const }))
)

/** How long `/readyz` waits for the state store's write probe (orchestrators' probes time out at 1-10 s). */
const storeProbeSeconds = 3

/** `/readyz` and `/metrics`. */
export const probes = HttpApiBuilder.group(AdminApi, "probes", (handlers) =>
  Effect.gen(function* () {
    const checkpoints = yield* CheckpointStore
    const sql = yield* SqlClient.SqlClient
    const status = yield* SourceStatus
    const outbox = yield* OutboxStore

    const readiness = Effect.gen(function* () {
      // A database that does not answer (a network partition, a server that accepts and hangs) must
      // make the probe answer 503, not time out the orchestrator's request without a reason.
      const storeProblem = yield* checkpoints.writable.pipe(
        Effect.as<string | undefined>(undefined),
        Effect.catch((e) => Effect.succeed(e.message)),
        Effect.timeoutOrElse({
          duration: `${storeProbeSeconds} seconds`,
          orElse: () => Effect.succeed(`no answer within ${storeProbeSeconds} s`)
        })
      )
      return Readiness.report({
        storeProblem,
        states: yield* status.all,
        unrecognised: yield* status.unrecognised,
        lastVerdicts: yield* status.lastVerdicts,
        now: yield* Clock.currentTimeMillis,
        // A store that cannot be read is the store's problem, said above: no sink line then.
        failingSinks: yield* outbox.failing.pipe(
          Effect.orElseSucceed(() => []),
          Effect.timeoutOrElse({ duration: `${storeProbeSeconds} seconds`, orElse: () => Effect.succeed([]) })
        )
      })
    })

    // Table sizes scan the database (dbstat reads every page): at most once a minute.
    let statsAt = 0
    const stateMetrics = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (now - statsAt < 60_000) return
      statsAt = now
      const stats = yield* StateStats.read().pipe(Effect.provideService(SqlClient.SqlClient, sql))
      for (const t of stats.tables) {
        yield* Metric.update(Metric.withAttributes(Metrics.stateTableRows, { table: t.table }), t.rows)
        yield* Metric.update(Metric.withAttributes(Metrics.stateTableBytes, { table: t.table }), t.bytes)
      }
      yield* Metric.update(
        Metrics.oldestUnprocessedSeconds,
        stats.oldestUnprocessedAt === undefined
          ? 0
          : ((yield* Clock.currentTimeMillis) - stats.oldestUnprocessedAt) / 1000
      )
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("state table stats failed", cause)))

    // The review queue per source: pending rows and the oldest one's age (0 once a source's queue empties).
    const reviews = yield* ReviewStore
    const queued = new Set<string>()
    const reviewMetrics = Effect.gen(function* () {
      const pending = yield* reviews.pending
      const now = yield* Clock.currentTimeMillis
      const current = new Map(pending.bySource.map((s) => [s.source, s]))
      for (const source of new Set([...queued, ...current.keys()])) {
        queued.add(source)
        const s = current.get(source)
        yield* Metric.update(Metric.withAttributes(Metrics.reviewPending, { source }), s?.count ?? 0)
        yield* Metric.update(
          Metric.withAttributes(Metrics.reviewOldestPendingSeconds, { source }),
          s === undefined ? 0 : Math.max(0, (now - s.oldestAt) / 1000)
        )
      }
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("review queue metrics failed", cause)))

    return handlers
      .handle("readyz", () =>
        Effect.flatMap(readiness, (report) =>
          report.ready ? Effect.succeed(report) : Effect.fail(new NotReady({ _tag: "NotReady", ...report }))
        )
      )
      .handle("metrics", () =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          for (const [source, state] of yield* status.all) {
            if (state.lastCommit !== undefined) {
              yield* Metric.update(
                Metric.withAttributes(Metrics.checkpointLag, { source }),
                (now - state.lastCommit) / 1000
              )
            }
          }
          yield* stateMetrics
          yield* reviewMetrics
          yield* ProcessMetrics.update
          return yield* PrometheusMetrics.format()
        })
      )
  })
)

/** What the admin API knows of a configured source: its connector's action kinds and automatic feedback. */
export interface SourceFacts {
  readonly actions: ReadonlyArray<string>
  /** The connector's type (the platform of author keys); absent: the source id. */
  readonly platform?: string | undefined
  readonly autoFeedback: boolean
  /** A dry run takes no action on its platform, from the console either. */
  readonly dryRun: boolean
}

const NO_FACTS: SourceFacts = { actions: [], autoFeedback: false, dryRun: false }

/** What the console may offer on an item version (nothing on an item deleted upstream or a dry run). */
const offered = (facts: SourceFacts, actions: ReadonlyArray<ActionRow>, latest: Decision) =>
  latest.deletedAt !== null || facts.dryRun ? [] : ModeratorAction.available(facts.actions, actions, latest.version)

/**
 * Decisions, one decision, feedback by reference, Restore / Remove, the limiter's view, source dead
 * letters.
 */
export const decisions = (sources: ReadonlyMap<string, SourceFacts>, rules: ReadonlyArray<string>) =>
  HttpApiBuilder.group(AdminApi, "decisions", (handlers) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const items = yield* ItemStore
      const decisionStore = yield* DecisionStore
      const actionStore = yield* ActionStore
      const reviewStore = yield* ReviewStore
      const platform: DecisionView.PlatformActions = new Map([...sources].map(([id, f]) => [id, f.actions]))
      const reviewFacts = new Map(
        [...sources].map(([id, f]) => [id, { platform: f.platform ?? id, actions: f.actions, dryRun: f.dryRun }])
      )
      const feedbackStore = yield* FeedbackStore
      const sourceErrors = yield* SourceErrorStore
      const limiter = yield* RateLimiter.RateLimiter
      const feedback = yield* FeedbackService

      /** The versions of a named item (409 when ambiguous without `source`, 404 when unknown). */
      const versionsOf = (reference: string, source: string | undefined) =>
        Effect.gen(function* () {
          if (source === undefined) {
            const sources = yield* items.sourcesOf(reference)
            if (sources.length > 1) return yield* fromFeedback(ambiguous(reference, sources))
          }
          const versions = yield* decisionStore.decision(reference, source)
          if (versions.length === 0) {
            return yield* new AdminRefused({
              status: 404,
              code: "NOT_FOUND",
              message: `no decision for ${reference}${source === undefined ? "" : ` of source ${source}`}`
            })
          }
          return versions
        })

      return handlers
        .handle("list", ({ query }) =>
          answering(
            Effect.gen(function* () {
              const limit = yield* RequestInput.int("limit", query.limit, { min: 1, max: 1000, fallback: 100 })
              const rows = yield* decisionStore.decisions({
                ...(yield* checkedFilters(query, rules)),
                since: yield* RequestInput.instant("since", query.since),
                limit: limit + 1,
                after: yield* DecisionCursor.decode(query.cursor)
              })
              const page = rows.slice(0, limit)
              const last = page.at(-1)
              return {
                decisions: yield* DecisionView.page(reviewStore, page, platform),
                // More rows: pass it back as `cursor` for the next page (same filters).
                nextCursor: rows.length > limit && last !== undefined ? DecisionCursor.encode(last) : null
              }
            })
          )
        )
        .handle("one", ({ params, query }) =>
          answering(
            Effect.gen(function* () {
              const reference = yield* RequestInput.text("reference", params.reference)
              const versions = yield* versionsOf(reference, query.source)
              const source = query.source
              const latest = versions[0]!
              const actions = yield* actionStore.actionsOf(reference, source)
              const sent = yield* feedbackStore.feedbackOf(reference, source)
              // The latest version's source event: author, permalink, post (what the console shows).
              const row = yield* items.item(latest.source, reference, latest.version)
              const event = Option.match(row, { onNone: () => null, onSome: (r) => r.event })
              const platformActions = offered(sources.get(latest.source) ?? NO_FACTS, actions, latest)
              const mine = actions.filter((a) => a.source === latest.source)
              const reviewRows = yield* reviewStore.ofItem(latest.source, reference)
              const shown = versions.map((v) => DecisionView.show(v, reviewRows, platform))
              const stored = yield* items.versionsOf(reviewRows)
              return {
                reference,
                source: latest.source,
                event,
                latest: shown[0]!,
                versions: shown,
                actions,
                feedback: sent,
                platformActions,
                rule: latest.rule,
                reviews: reviewRows.map((r) =>
                  ReviewView.show(
                    r,
                    stored.rows.get(`${r.source}\u001f${r.reference}\u001f${r.version}`),
                    mine,
                    latest.version,
                    reviewFacts.get(r.source)
                  )
                )
              }
            })
          )
        )
        .handle("feedback", ({ payload }) => {
          const { reference, version, source, ...input } = payload
          return Effect.flatMap(Effect.service(AdminCaller), (who) =>
            feedback
              .send({ reference, version, source, origin: "manual", input, sender: who })
              .pipe(Effect.mapError(fromFeedback), answering)
          )
        })
        .handle("moderate", ({ params, payload }) =>
          answering(
            Effect.gen(function* () {
              const who = yield* AdminCaller
              const reference = yield* RequestInput.text("reference", params.reference)
              const latest = (yield* versionsOf(reference, payload.source))[0]!
              const facts = sources.get(latest.source) ?? NO_FACTS
              const actions = yield* actionStore.actionsOf(reference, latest.source)
              const kind = payload.action === "restore" ? "restore" : ModeratorAction.removalKind(facts.actions)
              if (kind === undefined || !offered(facts, actions, latest).includes(payload.action)) {
                return yield* new AdminRefused({
                  status: 409,
                  code: "CANNOT_ACT",
                  message: facts.dryRun
                    ? `source ${latest.source} is a dry run: it takes no action on its platform`
                    : latest.deletedAt !== null
                      ? `${reference} was deleted on its platform`
                      : payload.action === "restore"
                        ? `nothing to restore: Warden has no hide, holdForReview or reject in force on ${reference}${facts.actions.includes("restore") ? "" : `, and the connector of source ${latest.source} cannot restore`}`
                        : `${reference} cannot be removed from the console: ${kind === undefined ? `the connector of source ${latest.source} declares no hide, holdForReview, reject or delete` : "Warden already took it out of view (or an action is still pending)"}`
                })
              }
              const outcome = yield* ModeratorAction.perform(
                sql,
                latest,
                kind,
                payload.action === "restore"
                  ? `restored by ${who.name} in the review console`
                  : `removed by ${who.name} in the review console`,
                who
              )
              const done = (feedbackNote: string) => ({ action: outcome, feedback: null, feedbackNote })
              if (outcome.status !== "done")
                return done(`no automatic feedback: the platform action is ${outcome.status}`)
              if (!facts.autoFeedback)
                return done(`no automatic feedback: autoFeedback is off for source ${latest.source}`)
              // Automatic feedback goes once per item version, as for a reversal made on the platform.
              if (yield* feedbackStore.hasFeedback(latest.source, reference, latest.version, "reversal"))
                return done("automatic feedback was already sent for this version")
              const verdict = (latest.verdict ?? {}) as { readonly classifications?: ReadonlyArray<string> }
              const sent = yield* feedback
                .send({
                  source: latest.source,
                  reference,
                  version: latest.version,
                  origin: "reversal",
                  sender: who,
                  input:
                    payload.action === "restore"
                      ? {
                          classificationsToRemove: verdict.classifications ?? [],
                          notes: `A moderator restored it in the review console, reversing Warden's ${ModeratorAction.removalInForce(actions, latest.version) ?? "action"}.`,
                          confidence: "HIGH"
                        }
                      : {
                          notes: "A moderator removed it in the review console: the verdict missed it.",
                          confidence: "HIGH"
                        }
                })
                .pipe(Effect.mapError(fromFeedback))
              return { action: outcome, feedback: sent, feedbackNote: "automatic feedback sent" }
            })
          )
        )
        .handle("quota", () =>
          // The transport limiter's view per endpoint: configured, learnt (from 429s) and enforced rates, and the burst.
          Effect.map(limiter.statusAll, (endpoints) => ({
            endpoints: endpoints.map((e) => ({
              endpoint: e.endpoint,
              configuredRate: e.configuredRate ?? null,
              learntRate: e.learntRate ?? null,
              currentRate: e.currentRate ?? null,
              burst: e.currentRate === undefined ? null : e.burst,
              recent429s: e.recent429s
            }))
          }))
        )
        .handle("deadLetters", ({ query }) =>
          answering(
            Effect.gen(function* () {
              const limit = yield* RequestInput.int("limit", query.limit, { min: 1, max: 1000, fallback: 100 })
              return { deadLetters: yield* sourceErrors.sourceDeadLetters({ source: query.source, limit }) }
            })
          )
        )
    })
  )

/** The console's session, sign-out, pipeline and replay. */
export const consoleGroup = (options: {
  readonly sessions: ConsoleSession.Sessions
  readonly sinks: ReadonlyArray<string>
}) =>
  HttpApiBuilder.group(AdminApi, "console", (handlers) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return handlers
        .handle("session", () =>
          Effect.map(Effect.service(AdminCaller), (who) => ({
            via: who.via,
            csrf: who.via === "cookie" ? who.session.csrf : null,
            name: who.name,
            role: who.role
          }))
        )
        .handle("signOut", () =>
          Effect.map(Effect.service(AdminCaller), (who) =>
            HttpServerResponse.jsonUnsafe(
              { signedIn: false },
              who.via === "cookie" ? { headers: { "set-cookie": options.sessions.close(who.session.id) } } : {}
            )
          )
        )
        .handle("pipeline", () =>
          Effect.orDie(Effect.flatMap(Clock.currentTimeMillis, (now) => PipelineView.read(sql, options.sinks, now)))
        )
        .handle("replay", ({ params }) =>
          answering(
            Effect.gen(function* () {
              const sink = yield* RequestInput.text("sink", params.sink)
              // A misspelt sink would replay nothing and look done: 404, naming the sinks there are.
              const known = yield* Effect.orDie(PipelineView.listedSinks(sql, options.sinks))
              if (!known.includes(sink))
                return yield* new AdminRefused({
                  status: 404,
                  code: "NOT_FOUND",
                  message: `no sink '${sink}' (sinks: ${known.join(", ") || "none"})`,
                  parameter: "sink"
                })
              const replayed = yield* DeadLetterReplay.replay(sql, sink, yield* AdminCaller)
              return { sink, replayed }
            })
          )
        )
    })
  )

/** The sign-in form: only the console's own page may sign a browser in (login CSRF). */
export const signIn = (sessions: ConsoleSession.Sessions) =>
  HttpApiBuilder.group(AdminApi, "signIn", (handlers) =>
    Effect.gen(function* () {
      const moderators = yield* Moderators
      return handlers.handle("signIn", ({ payload, request }) =>
        answering(
          Effect.gen(function* () {
            const foreign = ConsoleSession.foreignOrigin(request)
            if (foreign !== undefined)
              return yield* new AdminRefused({ status: 403, code: "CROSS_SITE_REFUSED", message: foreign })
            const moderator = yield* moderators.identify(payload.token).pipe(Effect.orDie)
            if (moderator === undefined)
              return yield* new AdminRefused({
                status: 401,
                code: "UNAUTHENTICATED",
                message: "that token is neither the admin token nor a moderator's"
              })
            // The CSRF token in the answer: the page signed in this way makes state-changing calls next.
            const { csrf, setCookie } = sessions.open(moderator)
            return HttpServerResponse.jsonUnsafe(
              { signedIn: true, csrf, name: moderator.name, role: moderator.role },
              { headers: { "set-cookie": setCookie } }
            )
          })
        )
      )
    })
  )

/** Every group above, given what they need beside the services. */
export const layer = (options: {
  readonly sessions: ConsoleSession.Sessions
  readonly sinks: ReadonlyArray<string>
  readonly sources: ReadonlyMap<string, SourceFacts>
  /** Every configured rule name (a `rule` filter naming another is a 400). */
  readonly rules: ReadonlyArray<string>
}) =>
  Layer.mergeAll(
    health,
    probes,
    decisions(options.sources, options.rules),
    consoleGroup(options),
    signIn(options.sessions)
  )
