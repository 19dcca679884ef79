/**
 * Review rows as the admin API shows them (`ReviewItem`): each with its item version's content, author,
 * post, verdict and language (from the stored event), what Warden holds on the platform and what a
 * decision can do there, and how many versions the item has. A page is read in three statements (the
 * rows, their item versions, their actions), whatever its size.
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql"
import type { ActionRow } from "../domain/Action.ts"
import * as PlatformState from "../domain/PlatformState.ts"
import { outcomeOf } from "../engine/ReviewService.ts"
import type { ActionStoreShape } from "../state/ActionStore.ts"
import { keyOf } from "../state/AuthorStore.ts"
import type { ItemStoreShape, StoredItem } from "../state/ItemStore.ts"
import type { Review } from "../state/ReviewStore.ts"
import type { ReviewItem } from "./ItemSchemas.ts"
import * as StoredEvent from "./StoredEvent.ts"

/** What the view knows of a configured source: its platform and the action kinds its connector declares. */
export interface SourceFacts {
  readonly platform: string
  readonly actions: ReadonlyArray<string>
  readonly dryRun: boolean
}

const iso = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString())

/** What Warden holds on the platform for an item version, and what a decision can do there. */
export const platformOf = (
  facts: SourceFacts | undefined,
  actions: ReadonlyArray<ActionRow>,
  version: number
): (typeof ReviewItem.Type)["platform"] => {
  const declared = facts?.actions ?? []
  const inForce = PlatformState.removalAfterQueued(actions, version)
  const held = inForce !== undefined && inForce !== "delete"
  const removal = PlatformState.REJECTIONS.some((k) => declared.includes(k))
  const note =
    facts?.dryRun === true
      ? "a dry run: nothing is done on the platform"
      : !removal && !declared.includes("restore")
        ? "not possible on this platform: decisions are recorded in Warden only"
        : inForce === "delete"
          ? "deleted on the platform"
          : undefined
  return {
    held,
    canRemove: facts?.dryRun !== true && removal && (inForce === undefined || inForce === "holdForReview"),
    canRestore: facts?.dryRun !== true && held && declared.includes("restore"),
    ...(note === undefined ? {} : { note })
  }
}

/** One row as shown, given its item version (undefined: not stored) and the item's actions. */
export const show = (
  review: Review,
  item: StoredItem | undefined,
  actions: ReadonlyArray<ActionRow>,
  versions: number,
  facts: SourceFacts | undefined
): typeof ReviewItem.Type => {
  const event = StoredEvent.read(item?.event)
  const verdict = item?.verdict ?? null
  const author = event.author
  return {
    source: review.source,
    reference: review.reference,
    version: review.version,
    kind: review.kind,
    state: outcomeOf(review),
    rule: review.rule,
    verdict,
    createdAt: iso(review.createdAt)!,
    decidedAt: review.decidedBy === null ? null : iso(review.decidedAt),
    decidedBy: review.decidedBy,
    note: review.note,
    classifications: review.classifications,
    statement: review.statement,
    content: event.content ?? { type: "unknown" },
    language: verdict?.language ?? event.language ?? null,
    permalink: event.permalink ?? null,
    author:
      author === undefined
        ? null
        : {
            key:
              item?.author_key ??
              review.authorKey ??
              (author.identifier === undefined || facts === undefined
                ? null
                : keyOf(facts.platform, author.identifier)),
            identifier: author.identifier ?? null,
            username: author.username ?? null,
            permalink: author.permalink ?? null
          },
    post: event.post === undefined ? null : { title: event.post.title, permalink: event.post.permalink ?? null },
    platform: platformOf(facts, actions, review.version),
    versions
  }
}

/** A page of rows as shown (their items and actions read in one statement each). */
export const page = (
  stores: { readonly items: ItemStoreShape; readonly actions: ActionStoreShape },
  reviews: ReadonlyArray<Review>,
  facts: ReadonlyMap<string, SourceFacts>
): Effect.Effect<Array<typeof ReviewItem.Type>, SqlError.SqlError> =>
  Effect.gen(function* () {
    if (reviews.length === 0) return []
    const { rows, latest } = yield* stores.items.versionsOf(reviews)
    const actions = yield* stores.actions.ofItems(reviews)
    return reviews.map((r) => {
      const item = `${r.source}\u001f${r.reference}`
      return show(
        r,
        rows.get(`${item}\u001f${r.version}`),
        actions.get(item) ?? [],
        latest.get(item) ?? r.version,
        facts.get(r.source)
      )
    })
  })
