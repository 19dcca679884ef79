/**
 * Deciding the review queue (issue 36) and appeals (issue 37): one service, used by the admin API and
 * the tests.
 *
 * `decide` wins the item's pending row in one transaction (`state = 'pending'`: of two moderators
 * deciding at once, one gets it, the other a 409 `ALREADY_DECIDED` naming the first and nothing is
 * done twice) and writes, in that transaction, its audit row, the author's strike change and the
 * platform action the decision calls for (queued in `warden_actions` with rule `review`, run by the
 * source's executor like any other). After the commit, a decision that disagrees with the verdict
 * sends feedback by reference (confidence HIGH, origin `review` or `appeal`): feedback failing does not
 * undo the decision, it is recorded as failed and the answer says so.
 *
 * `appeal` files an appeal of an item's latest version (a pending `kind: appeal` row), refused after
 * the appeal window or on an erased item (410).
 */
import { Clock, Context, Effect, Layer, Metric, Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { ActionRow } from "../domain/Action.ts"
import * as PlatformState from "../domain/PlatformState.ts"
import type { StrikePolicy } from "../domain/StrikePolicy.ts"
import * as ActionStore from "../state/ActionStore.ts"
import { AuditStore } from "../state/AuditStore.ts"
import { ItemStore, type StoredItem } from "../state/ItemStore.ts"
import { type Review, ReviewStore } from "../state/ReviewStore.ts"
import { StrikeStore } from "../state/StrikeStore.ts"
import { WriteSignals } from "../state/WriteSignals.ts"
import { type FeedbackRefused, type FeedbackSent, FeedbackService, type Sender } from "./FeedbackService.ts"
import * as Metrics from "./Metrics.ts"
import { feedbackFor, harmful, outcomeOf } from "./ReviewOutcome.ts"

/** The rule name of the platform actions review decisions queue. */
export const RULE = "review"

/** A review or appeal refused: its HTTP status, code and message (the admin API's envelope). */
export class ReviewRefused extends Schema.TaggedError<ReviewRefused>()("ReviewRefused", {
  status: Schema.Int,
  code: Schema.String,
  message: Schema.String,
  sources: Schema.optionalKey(Schema.Array(Schema.String))
}) {}

/** What the service knows of a configured source. */
export interface SourceFacts {
  /** The action kinds its connector declares. */
  readonly actions: ReadonlyArray<string>
  /** A dry run: decisions are recorded, platform actions only as `would-do`. */
  readonly dryRun: boolean
}

/** The settings of the service. */
export interface ReviewSettings {
  readonly sources: ReadonlyMap<string, SourceFacts>
  /** The strike policy (`authors.strikes`): a rejection's weight. */
  readonly strikes?: StrikePolicy | undefined
  /** How long after an item an appeal may be filed (milliseconds). */
  readonly appealWindowMillis: number
}

/** A moderator's decision. */
export interface DecideInput {
  readonly actor: Sender
  readonly source?: string | undefined
  readonly reference: string
  readonly decision: "approve" | "reject"
  readonly note?: string | undefined
  /** The classifications the moderator ticked (feedback sends them). */
  readonly classifications?: ReadonlyArray<string> | undefined
}

/** What a decision did. */
export interface Decided {
  /** The review row as decided. */
  readonly review: Review
  /** The platform actions queued (rule `review`). */
  readonly actions: ReadonlyArray<ActionRow>
  /** The platform's side, in words. */
  readonly platformNote: string
  readonly feedback: FeedbackSent | null
  readonly feedbackNote: string
}

/** An appeal to file. */
export interface AppealInput {
  readonly actor: Sender
  readonly source?: string | undefined
  readonly reference: string
  /** The author's words. */
  readonly statement: string
}

// The rules of a decision (ReviewOutcome.ts), where the admin views have always found them.
export { feedbackFor, harmful, outcomeOf }

/** The review queue's decisions and appeals. */
export interface ReviewServiceShape {
  readonly decide: (input: DecideInput) => Effect.Effect<Decided, ReviewRefused | SqlError.SqlError>
  readonly appeal: (input: AppealInput) => Effect.Effect<Review, ReviewRefused | SqlError.SqlError>
}

const iso = (millis: number) => new Date(millis).toISOString()

const make = (settings: ReviewSettings) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reviews = yield* ReviewStore
    const items = yield* ItemStore
    const strikes = yield* StrikeStore
    const audit = yield* AuditStore
    const actionStore = yield* ActionStore.ActionStore
    const feedback = yield* FeedbackService
    const signals = yield* WriteSignals

    /** The source of a reference given without one: 409 when several recorded it, 404 when none. */
    const sourceOf = (reference: string, source: string | undefined) =>
      Effect.gen(function* () {
        if (source !== undefined) return source
        const sources = yield* items.sourcesOf(reference)
        if (sources.length > 1)
          return yield* new ReviewRefused({
            status: 409,
            code: "AMBIGUOUS_REFERENCE",
            message: `${reference} was recorded by ${sources.length} sources (${sources.join(", ")}): name one with source`,
            sources: [...sources]
          })
        if (sources.length === 0)
          return yield* new ReviewRefused({ status: 404, code: "NOT_FOUND", message: `no item ${reference}` })
        return sources[0]!
      })

    /** Queues the platform action of a decision on the item version (next seq), in the caller's transaction. */
    const queue = (item: StoredItem, kind: string, reason: string, now: number, dryRun: boolean) =>
      Effect.gen(function* () {
        const seq = yield* ActionStore.nextSeq(sql, item)
        const action = {
          seq,
          rule: RULE,
          kind,
          params: undefined,
          reason,
          status: dryRun ? ("would-do" as const) : ("pending" as const)
        }
        const [row] = ActionStore.rowsOf(item, [action], now)
        yield* sql`INSERT INTO warden_actions ${sql.insert(row!)}`
        return {
          source: item.source,
          reference: item.reference,
          version: item.version,
          seq,
          rule: RULE,
          kind,
          params: null,
          reason,
          status: action.status,
          attempts: 0,
          lastError: null
        } satisfies ActionRow
      })

    const decide = Effect.fn("ReviewService.decide")(function* (input: DecideInput) {
      const source = yield* sourceOf(input.reference, input.source)
      const facts = settings.sources.get(source) ?? { actions: [], dryRun: false }
      const now = yield* Clock.currentTimeMillis
      const done = yield* sql.withTransaction(
        Effect.gen(function* () {
          const row = yield* reviews.decide({
            source,
            reference: input.reference,
            state: input.decision === "approve" ? "approved" : "rejected",
            decidedBy: input.actor.name,
            decidedAt: now,
            note: input.note,
            classifications: input.classifications
          })
          if (row === undefined) {
            const known = yield* reviews.ofItem(source, input.reference)
            const decided = known.find((r) => r.decidedBy !== null && r.decidedAt !== null)
            if (decided !== undefined)
              return yield* new ReviewRefused({
                status: 409,
                code: "ALREADY_DECIDED",
                message: `${input.reference} was already decided by ${decided.decidedBy} at ${iso(decided.decidedAt!)} (${outcomeOf(decided)}): nothing was done`
              })
            return yield* new ReviewRefused({
              status: 404,
              code: "NOT_FOUND",
              message: `nothing of ${input.reference} in source ${source} is waiting for review`
            })
          }
          const found = yield* items.item(source, input.reference, row.version)
          if (Option.isNone(found))
            return yield* new ReviewRefused({
              status: 404,
              code: "NOT_FOUND",
              message: `${input.reference} version ${row.version} is not stored`
            })
          const item = found.value
          const outcome = outcomeOf(row)
          // The platform: an approval (an upheld appeal) restores what Warden holds; a rejection removes.
          const before = yield* actionStore.actionsOf(input.reference, source)
          const deny = row.kind === "appeal" && input.decision === "reject"
          const plan = deny
            ? { kind: undefined, note: "the appeal was denied: the item stays as it is" }
            : PlatformState.reviewPlan(
                input.decision === "approve" ? "restore" : "remove",
                facts.actions,
                before,
                row.version
              )
          const reason = `warden review: ${outcome} by ${input.actor.name}`
          const queued = plan.kind === undefined ? [] : [yield* queue(item, plan.kind, reason, now, facts.dryRun)]
          yield* audit.record({
            at: now,
            actor: input.actor.name,
            role: input.actor.role,
            action:
              row.kind === "appeal"
                ? input.decision === "approve"
                  ? "appeal.uphold"
                  : "appeal.deny"
                : input.decision === "approve"
                  ? "review.approve"
                  : "review.reject",
            source,
            reference: input.reference,
            version: row.version,
            detail: {
              rule: row.rule,
              classifications: input.classifications ?? null,
              platform: plan.note,
              actions: queued.map((a) => a.kind)
            }
          })
          for (const a of queued)
            yield* audit.record({
              at: now,
              actor: input.actor.name,
              role: input.actor.role,
              action: a.kind === "restore" ? "platform.restore" : "platform.remove",
              source,
              reference: input.reference,
              version: row.version,
              detail: { kind: a.kind, seq: a.seq, rule: RULE, status: a.status }
            })
          // The author's strike: a rejection counts (the policy's weight), an approval or upheld appeal removes it.
          const authorKey = row.authorKey ?? item.author_key ?? null
          if (input.decision === "approve")
            yield* strikes.remove({
              source,
              reference: input.reference,
              at: now,
              by: input.actor.name,
              reason: row.kind === "appeal" ? "appeal upheld" : "approved in review"
            })
          else if (!deny && authorKey !== null && (settings.strikes?.rejection ?? 1) > 0)
            yield* strikes.reject({
              authorKey,
              source,
              reference: input.reference,
              weight: settings.strikes?.rejection ?? 1,
              at: item.created_at
            })
          return { row, item, queued, plan }
        })
      )
      if (done.queued.some((a) => a.status === "pending")) signals.actions.ring()
      yield* Metric.update(
        Metric.withAttributes(Metrics.reviewDecisions, { moderator: input.actor.name, outcome: outcomeOf(done.row) }),
        1
      )
      const wanted = feedbackFor(done.row, input.decision, done.item.verdict, input.note, input.classifications)
      const sent =
        "none" in wanted
          ? { feedback: null, feedbackNote: wanted.none }
          : yield* feedback
              .send({
                source,
                reference: input.reference,
                version: done.row.version,
                origin: done.row.kind === "appeal" ? "appeal" : "review",
                input: wanted.input,
                sender: input.actor
              })
              .pipe(
                Effect.map((f) => ({ feedback: f as FeedbackSent | null, feedbackNote: "feedback sent" })),
                Effect.catch((refused: FeedbackRefused) =>
                  Effect.succeed({
                    feedback: null,
                    feedbackNote: `the decision is recorded, but its feedback was not sent: ${refused.reason}`
                  })
                )
              )
      return {
        review: done.row,
        actions: done.queued,
        platformNote: done.plan.note,
        ...sent
      } satisfies Decided
    })

    const appeal = Effect.fn("ReviewService.appeal")(function* (input: AppealInput) {
      const source = yield* sourceOf(input.reference, input.source)
      const now = yield* Clock.currentTimeMillis
      const found = yield* items.item(source, input.reference, undefined)
      if (Option.isNone(found))
        return yield* new ReviewRefused({ status: 404, code: "NOT_FOUND", message: `no item ${input.reference}` })
      const item = found.value
      if (item.erased_at !== null && item.erased_at !== undefined)
        return yield* new ReviewRefused({
          status: 410,
          code: "ERASED",
          message: `${input.reference} was erased at ${item.erased_at}: there is nothing left to appeal`
        })
      if (now - item.created_at > settings.appealWindowMillis)
        return yield* new ReviewRefused({
          status: 410,
          code: "APPEAL_WINDOW_PASSED",
          message: `${input.reference} was recorded at ${iso(item.created_at)}: the appeal window (${Math.round(settings.appealWindowMillis / 86_400_000)} days) has passed`
        })
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          const known = yield* reviews.ofItem(source, input.reference)
          if (known.some((r) => r.state === "pending"))
            return yield* new ReviewRefused({
              status: 409,
              code: "ALREADY_PENDING",
              message: `${input.reference} is already waiting for review`
            })
          const verdict = item.verdict
          const filed = yield* reviews.fileAppeal({
            source,
            reference: input.reference,
            version: item.version,
            rule: item.rule ?? null,
            verdictType: verdict?.type ?? null,
            severityRank: 0,
            authorKey: item.author_key ?? null,
            createdAt: now,
            statement: input.statement
          })
          if (!filed) {
            const earlier = known.find((r) => r.kind === "appeal" && r.version === item.version)
            return yield* new ReviewRefused({
              status: 409,
              code: "ALREADY_APPEALED",
              message: `${input.reference} version ${item.version} was appealed before${earlier?.decidedBy === null || earlier === undefined ? "" : ` (${outcomeOf(earlier)} by ${earlier.decidedBy})`}`
            })
          }
          yield* audit.record({
            at: now,
            actor: input.actor.name,
            role: input.actor.role,
            action: "appeal.file",
            source,
            reference: input.reference,
            version: item.version,
            detail: { rule: item.rule ?? null }
          })
          const [row] = (yield* reviews.ofItem(source, input.reference)).filter(
            (r) => r.kind === "appeal" && r.version === item.version
          )
          return row!
        })
      )
    })

    return ReviewService.of({ decide, appeal })
  })

/** The review queue's decisions and appeals. */
export class ReviewService extends Context.Service<ReviewService, ReviewServiceShape>()(
  "@warden/daemon/ReviewService"
) {
  /** On the state's stores and the feedback service in context. */
  static readonly layer = (settings: ReviewSettings) => Layer.effect(ReviewService, make(settings))
}
