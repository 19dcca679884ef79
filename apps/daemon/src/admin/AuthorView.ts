/**
 * `GET /api/authors/{author}` (issue 37): one author's history as a moderator reads it. Who (key,
 * platform, identifier, the usernames seen, the sources), counts by type and severity over 24 h, 7 d
 * and 30 d, strikes with their decay ("3 strikes, 1.6 after decay; the last on 11-20", and a daily
 * series of the score over 30 days for a chart), and a page of items newest first, each with its
 * verdict, rule, review state, actions, feedback, appeals and strike.
 */
import { Duration, Effect } from "effect"
import type { SqlError } from "effect/sql"
import * as StrikePolicy from "../domain/StrikePolicy.ts"
import type { ActionStoreShape } from "../state/ActionStore.ts"
import { type AuthorItemPosition, type AuthorStoreShape, partsOf } from "../state/AuthorStore.ts"
import type { FeedbackStoreShape } from "../state/FeedbackStore.ts"
import type { ItemStoreShape } from "../state/ItemStore.ts"
import { itemKey, type ReviewStoreShape } from "../state/ReviewStore.ts"
import type { Strike, StrikeStoreShape } from "../state/StrikeStore.ts"
import type { AuthorHistory } from "./ReviewApi.ts"
import { outcomeOf } from "../engine/ReviewService.ts"

const DAY = 86_400_000
const iso = (millis: number) => new Date(millis).toISOString()

/** The stores the history reads. */
export interface Stores {
  readonly authors: AuthorStoreShape
  readonly strikes: StrikeStoreShape
  readonly reviews: ReviewStoreShape
  readonly actions: ActionStoreShape
  readonly feedback: FeedbackStoreShape
  readonly items: ItemStoreShape
}

/** The score of `strikes` at `at`: those recorded by then and not removed by then, decayed to then. */
export const scoreAt = (strikes: ReadonlyArray<Strike>, at: number, halfLifeMillis: number): number =>
  StrikePolicy.score(
    strikes.filter((s) => s.at <= at && (s.removedAt === null || s.removedAt > at)),
    at,
    halfLifeMillis
  )

/** "3 strikes, 1.6 after decay; the last on 11-20" (or "no strikes"). */
export const explain = (strikes: ReadonlyArray<Strike>, now: number, halfLifeMillis: number): string => {
  const live = strikes.filter((s) => s.removedAt === null)
  if (live.length === 0) return "no strikes"
  const last = Math.max(...live.map((s) => s.at))
  const score = StrikePolicy.score(live, now, halfLifeMillis)
  return `${live.length} strike${live.length === 1 ? "" : "s"}, ${score.toFixed(1)} after decay; the last on ${iso(last).slice(5, 10)}`
}

/** The history of `key` at `now`, a page of `limit` items after `after`; undefined when nothing of theirs is stored. */
export const history = (
  stores: Stores,
  key: string,
  options: {
    readonly now: number
    readonly halfLifeMillis: number
    readonly limit: number
    readonly after: AuthorItemPosition | undefined
  }
): Effect.Effect<
  | { readonly body: Omit<typeof AuthorHistory.Type, "nextCursor">; readonly next: AuthorItemPosition | undefined }
  | undefined,
  SqlError.SqlError
> =>
  Effect.gen(function* () {
    const summary = yield* stores.authors.summary(key)
    if (summary === undefined) return undefined
    const { now, halfLifeMillis } = options
    const [day, week, month] = yield* stores.authors.counts(key, [now - DAY, now - 7 * DAY, now - 30 * DAY])
    const strikes = yield* stores.strikes.ofAuthor(key)
    const live = strikes.filter((s) => s.removedAt === null)
    const rows = yield* stores.authors.items(key, options.limit + 1, options.after)
    const page = rows.slice(0, options.limit)
    const [reviews, actions, feedback] = yield* Effect.all([
      stores.reviews.ofItems(page),
      stores.actions.ofItems(page),
      stores.feedback.ofItems(page)
    ])
    const { rows: stored } = yield* stores.items.versionsOf(page)
    const strikeOf = new Map(strikes.map((s) => [itemKey(s.source, s.reference), s]))
    const items = page.map((i) => {
      const item = itemKey(i.source, i.reference)
      const ofVersion = (reviews.get(item) ?? []).filter((r) => r.version === i.version)
      const review = ofVersion.find((r) => r.kind === "item")
      const strike = strikeOf.get(item)
      return {
        source: i.source,
        reference: i.reference,
        version: i.version,
        status: i.status,
        createdAt: iso(i.createdAt),
        username: i.authorName,
        verdict: i.verdict,
        rule: stored.get(`${item}\u001f${i.version}`)?.rule ?? review?.rule ?? null,
        review:
          review === undefined ? null : { state: outcomeOf(review), kind: review.kind, decidedBy: review.decidedBy },
        actions: (actions.get(item) ?? [])
          .filter((a) => a.version === i.version)
          .map((a) => ({ kind: a.kind, status: a.status, rule: a.rule })),
        feedback: (feedback.get(item) ?? [])
          .filter((f) => f.version === i.version)
          .map((f) => ({ origin: f.origin, status: f.status, id: f.id })),
        appeals: ofVersion
          .filter((r) => r.kind === "appeal")
          .map((r) => ({ state: outcomeOf(r), decidedBy: r.decidedBy })),
        strike:
          strike === undefined
            ? null
            : { kind: strike.kind, weight: strike.weight, removed: strike.removedAt !== null },
        erased: i.erasedAt !== null
      }
    })
    const parts = partsOf(key)
    const last = page.at(-1)
    return {
      body: {
        author: {
          key,
          platform: parts.platform,
          identifier: parts.identifier,
          usernames: summary.usernames,
          sources: summary.sources,
          firstSeenAt: iso(summary.firstSeenAt),
          lastSeenAt: iso(summary.lastSeenAt)
        },
        counts: { "24h": day!, "7d": week!, "30d": month! },
        strikes: {
          score: StrikePolicy.score(live, now, halfLifeMillis),
          count: live.length,
          lastAt: live.length === 0 ? null : iso(Math.max(...live.map((s) => s.at))),
          halfLife: Duration.format(Duration.millis(halfLifeMillis)),
          explanation: explain(strikes, now, halfLifeMillis),
          series: [...Array.from({ length: 30 }, (_, d) => now - (30 - d) * DAY), now].map((at) => ({
            at: iso(at),
            score: scoreAt(strikes, at, halfLifeMillis)
          })),
          list: strikes.map((s) => ({
            source: s.source,
            reference: s.reference,
            kind: s.kind,
            weight: s.weight,
            at: iso(s.at),
            now: s.removedAt === null ? StrikePolicy.decayed(s.weight, s.at, now, halfLifeMillis) : 0,
            removedAt: s.removedAt === null ? null : iso(s.removedAt),
            removedBy: s.removedBy,
            removedReason: s.removedReason
          }))
        },
        items
      },
      next:
        rows.length > options.limit && last !== undefined
          ? { createdAt: last.createdAt, source: last.source, reference: last.reference, version: last.version }
          : undefined
    }
  })
