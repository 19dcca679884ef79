/**
 * The handlers of the admin API's review group (`AdminApi.ts`, issues 36 and 37):
 *
 * - `GET /api/review?state=pending|decided&source=&kind=item|appeal&limit=&cursor=`: a page of the queue
 *   (pending: most severe, then oldest; decided: newest first) and the pending counts;
 * - `POST /api/decisions/{reference}/review?source=` `{ decision, note?, classifications? }`: a
 *   moderator's decision (ReviewService.decide), 409 `ALREADY_DECIDED` naming who decided first;
 * - `POST /api/appeals` `{ source?, reference, statement }`: an appeal (ReviewService.appeal);
 * - `GET /api/audit?actor=&action=&source=&limit=&cursor=`: the audit, newest first;
 * - `GET /api/authors/{author}?limit=&cursor=`: an author's history (AuthorView).
 *
 * Filters are checked: an unknown `state`, `kind` or `action` is a 400 naming the values allowed.
 */
import { Clock, Effect, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ReviewService } from "../engine/ReviewService.ts"
import { ActionStore } from "../state/ActionStore.ts"
import { ACTIONS, AuditStore } from "../state/AuditStore.ts"
import { AuthorStore } from "../state/AuthorStore.ts"
import { FeedbackStore } from "../state/FeedbackStore.ts"
import { ItemStore } from "../state/ItemStore.ts"
import { KINDS, type ReviewPosition, ReviewStore } from "../state/ReviewStore.ts"
import { StrikeStore } from "../state/StrikeStore.ts"
import { AdminApi } from "./AdminApi.ts"
import { AdminCaller } from "./AdminSecurity.ts"
import { AdminRefused, answering } from "./AdminError.ts"
import * as AuthorView from "./AuthorView.ts"
import * as Cursor from "./Cursor.ts"
import * as RequestInput from "./RequestInput.ts"
import * as ReviewView from "./ReviewView.ts"

/** What the review routes know of the configuration. */
export interface ReviewOptions {
  /** Each source's platform, connector action kinds and dry run. */
  readonly sources: ReadonlyMap<string, ReviewView.SourceFacts>
  /** The strike half-life (`authors.strikes.halfLife`), milliseconds. */
  readonly halfLifeMillis: number
}

const PendingCursor = Cursor.make(Schema.Tuple([Schema.Number, Schema.Number, Schema.String, Schema.String]))
const DecidedCursor = Cursor.make(Schema.Tuple([Schema.Number, Schema.String, Schema.String]))
const AuditCursor = Cursor.make(Schema.Tuple([Schema.Number, Schema.String]))
const AuthorCursor = Cursor.make(Schema.Tuple([Schema.Number, Schema.String, Schema.String, Schema.Number]))

/** A filter value among `allowed`, or a 400 naming them. */
export const oneOf = <const A extends string>(
  parameter: string,
  value: string | undefined,
  allowed: ReadonlyArray<A>
): Effect.Effect<A | undefined, AdminRefused> =>
  value === undefined || (allowed as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as A | undefined)
    : Effect.fail(
        new AdminRefused({
          status: 400,
          code: "BAD_REQUEST",
          message: `${parameter}: '${value}' is not one of ${allowed.join(", ")}`,
          parameter
        })
      )

const iso = (millis: number) => new Date(millis).toISOString()

/** The review group. */
export const layer = (options: ReviewOptions) =>
  HttpApiBuilder.group(AdminApi, "review", (handlers) =>
    Effect.gen(function* () {
      const reviews = yield* ReviewStore
      const items = yield* ItemStore
      const actions = yield* ActionStore
      const audit = yield* AuditStore
      const service = yield* ReviewService
      const authorStores: AuthorView.Stores = {
        authors: yield* AuthorStore,
        strikes: yield* StrikeStore,
        reviews,
        actions,
        feedback: yield* FeedbackStore,
        items
      }
      const refused = (e: {
        readonly status: number
        readonly code: string
        readonly message: string
        readonly sources?: ReadonlyArray<string> | undefined
      }) =>
        new AdminRefused({
          status: e.status,
          code: e.code,
          message: e.message,
          ...(e.sources === undefined ? {} : { sources: e.sources })
        })
      const shown = (rows: Parameters<typeof ReviewView.page>[1]) =>
        ReviewView.page({ items, actions }, rows, options.sources)

      return handlers
        .handle("list", ({ query }) =>
          answering(
            Effect.gen(function* () {
              const state = (yield* oneOf("state", query.state, ["pending", "decided"] as const)) ?? "pending"
              const kind = yield* oneOf("kind", query.kind, KINDS)
              const limit = yield* RequestInput.int("limit", query.limit, { min: 1, max: 500, fallback: 50 })
              let after: ReviewPosition | undefined
              if (state === "pending") {
                const p = yield* PendingCursor.decode(query.cursor)
                after =
                  p === undefined
                    ? undefined
                    : { state, severityRank: p[0], createdAt: p[1], source: p[2], reference: p[3] }
              } else {
                const p = yield* DecidedCursor.decode(query.cursor)
                after = p === undefined ? undefined : { state, decidedAt: p[0], source: p[1], reference: p[2] }
              }
              const rows = yield* reviews.list({ state, source: query.source, kind, limit: limit + 1, after })
              const page = rows.slice(0, limit)
              const last = page.at(-1)
              const pending = yield* reviews.pending
              return {
                items: yield* shown(page),
                nextCursor:
                  rows.length <= limit || last === undefined
                    ? null
                    : state === "pending"
                      ? PendingCursor.encode([last.severityRank, last.createdAt, last.source, last.reference])
                      : DecidedCursor.encode([last.decidedAt ?? 0, last.source, last.reference]),
                pending: {
                  total: pending.total,
                  bySource: Object.fromEntries(pending.bySource.map((s) => [s.source, s.count]))
                }
              }
            })
          )
        )
        .handle("decide", ({ params, query, payload }) =>
          answering(
            Effect.gen(function* () {
              const reference = yield* RequestInput.text("reference", params.reference)
              const who = yield* AdminCaller
              const done = yield* service
                .decide({
                  actor: who,
                  source: query.source,
                  reference,
                  decision: payload.decision,
                  note: payload.note,
                  classifications: payload.classifications
                })
                .pipe(Effect.catchTag("ReviewRefused", (e) => Effect.fail(refused(e))))
              const [review] = yield* shown([done.review])
              return {
                review: review!,
                actions: done.actions,
                platformNote: done.platformNote,
                feedback: done.feedback,
                feedbackNote: done.feedbackNote
              }
            })
          )
        )
        .handle("fileAppeal", ({ payload }) =>
          answering(
            Effect.gen(function* () {
              const filed = yield* service
                .appeal({
                  actor: yield* AdminCaller,
                  source: payload.source,
                  reference: payload.reference,
                  statement: payload.statement
                })
                .pipe(Effect.catchTag("ReviewRefused", (e) => Effect.fail(refused(e))))
              const [review] = yield* shown([filed])
              return { review: review! }
            })
          )
        )
        .handle("audit", ({ query }) =>
          answering(
            Effect.gen(function* () {
              const action = yield* oneOf("action", query.action, ACTIONS)
              const limit = yield* RequestInput.int("limit", query.limit, { min: 1, max: 1000, fallback: 100 })
              const p = yield* AuditCursor.decode(query.cursor)
              const rows = yield* audit.list({
                actor: query.actor,
                action,
                source: query.source,
                limit: limit + 1,
                after: p === undefined ? undefined : { at: p[0], id: p[1] }
              })
              const page = rows.slice(0, limit)
              const last = page.at(-1)
              return {
                entries: page.map((e) => ({ ...e, at: iso(e.at) })),
                nextCursor: rows.length > limit && last !== undefined ? AuditCursor.encode([last.at, last.id]) : null
              }
            })
          )
        )
        .handle("author", ({ params, query }) =>
          answering(
            Effect.gen(function* () {
              const key = yield* RequestInput.text("author", params.author)
              const limit = yield* RequestInput.int("limit", query.limit, { min: 1, max: 500, fallback: 50 })
              const p = yield* AuthorCursor.decode(query.cursor)
              const found = yield* AuthorView.history(authorStores, key, {
                now: yield* Clock.currentTimeMillis,
                halfLifeMillis: options.halfLifeMillis,
                limit,
                after: p === undefined ? undefined : { createdAt: p[0], source: p[1], reference: p[2], version: p[3] }
              })
              if (found === undefined)
                return yield* new AdminRefused({
                  status: 404,
                  code: "NOT_FOUND",
                  message: `no stored item of author ${key} (an author is <platform>:<identifier>, e.g. discord:1234)`
                })
              const next = found.next
              return {
                ...found.body,
                nextCursor:
                  next === undefined
                    ? null
                    : AuthorCursor.encode([next.createdAt, next.source, next.reference, next.version])
              }
            })
          )
        )
    })
  )
