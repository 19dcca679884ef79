/**
 * The handlers of the decisions group (`DecisionsApi.ts`): decisions, one decision, feedback by
 * reference, Restore / Remove, the limiter's view, source dead letters. Input problems fail with
 * `AdminRefused`, answered as the envelope with their status (`AdminError.answering`).
 */
import { RateLimiter } from "@warden/transport"
import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import type { ActionRow } from "../domain/Action.ts"
import { ambiguous, type FeedbackRefused, FeedbackService } from "../engine/FeedbackService.ts"
import { ActionStore } from "../state/ActionStore.ts"
import type { StoredDecision } from "../domain/Decision.ts"
import { DecisionStore } from "../state/DecisionStore.ts"
import { FeedbackStore } from "../state/FeedbackStore.ts"
import { ItemStore } from "../state/ItemStore.ts"
import { ReviewStore } from "../state/ReviewStore.ts"
import { SourceErrorStore } from "../state/SourceErrorStore.ts"
import { AdminApi } from "./AdminApi.ts"
import { AdminRefused, answering } from "./AdminError.ts"
import { AdminCaller } from "./AdminSecurity.ts"
import * as DecisionCursor from "./DecisionCursor.ts"
import { checkedFilters } from "./DecisionFilterCheck.ts"
import * as DecisionView from "./DecisionView.ts"
import * as ModeratorAction from "./ModeratorAction.ts"
import * as RequestInput from "./RequestInput.ts"
import * as ReviewView from "./ReviewView.ts"

/** A feedback refusal as the admin envelope. */
export const fromFeedback = (refused: FeedbackRefused): AdminRefused =>
  new AdminRefused({
    status: refused.status,
    code: refused.code,
    message: refused.reason,
    ...(refused.sources === undefined ? {} : { sources: refused.sources })
  })

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
const offered = (facts: SourceFacts, actions: ReadonlyArray<ActionRow>, latest: StoredDecision) =>
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
