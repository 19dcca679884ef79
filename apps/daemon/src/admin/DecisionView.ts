/**
 * Stored decisions as the admin API shows them (issue 36): times as ISO strings, the request sent as
 * JSON (not a string of JSON), the rule that matched, the author, the review state, and "not possible
 * on this platform" where the connector can take no action; a listed decision also each platform
 * action's status (the store reads them with the page), so a list says what was done, not only what
 * was recommended. A page reads its review rows in one statement. `GET /api/decisions`, its stream and
 * `GET /api/decisions/{ref}` show rows this way.
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql"
import { outcomeOf } from "../engine/ReviewService.ts"
import type { ListedStoredDecision, StoredDecision } from "../domain/Decision.ts"
import { itemKey, type Review, type ReviewStoreShape } from "../state/ReviewStore.ts"
import type { Decision, ListedDecision } from "./DecisionsApi.ts"

/** What the view knows of each source's connector: whether it can act on its platform at all. */
export type PlatformActions = ReadonlyMap<string, ReadonlyArray<string>>

const iso = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString())

/** The request as JSON (a request that is not JSON, from an older state, stays its text). */
const requestOf = (request: string | null): unknown => {
  if (request === null) return null
  try {
    return JSON.parse(request)
  } catch {
    return request
  }
}

/** One stored decision as shown, given its item's review rows. */
export const show = (
  d: StoredDecision,
  reviews: ReadonlyArray<Review>,
  platform: PlatformActions
): typeof Decision.Type => {
  const review =
    reviews.find((r) => r.version === d.version && r.kind === "item") ?? reviews.find((r) => r.version === d.version)
  const declared = platform.get(d.source)
  return {
    source: d.source,
    reference: d.reference,
    version: d.version,
    status: d.status,
    contentType: d.contentType,
    mode: d.mode,
    endpoint: d.endpoint,
    request: requestOf(d.request),
    verdict: d.verdict,
    error: d.error,
    segments: d.segments,
    analysedAt: d.analysedAt,
    createdAt: iso(d.createdAt)!,
    deletedAt: d.deletedAt,
    rule: d.rule,
    author: d.authorKey === null ? null : { key: d.authorKey, username: d.authorName },
    review:
      review === undefined
        ? null
        : {
            kind: review.kind,
            state: outcomeOf(review),
            decidedBy: review.decidedBy,
            decidedAt: review.decidedBy === null ? null : iso(review.decidedAt)
          },
    platform: declared !== undefined && declared.length === 0 ? "not possible on this platform" : null
  }
}

/** A page of listed decisions as shown (their review rows read in one statement). */
export const page = (
  reviews: ReviewStoreShape,
  rows: ReadonlyArray<ListedStoredDecision>,
  platform: PlatformActions
): Effect.Effect<Array<typeof ListedDecision.Type>, SqlError.SqlError> =>
  Effect.gen(function* () {
    if (rows.length === 0) return []
    const found = yield* reviews.ofItems(rows)
    return rows.map((d) => ({
      ...show(d, found.get(itemKey(d.source, d.reference)) ?? [], platform),
      actions: d.actions
    }))
  })
