/**
 * The authors of a round as the policy's author conditions read them (`when.author`, issue 37): built in
 * the record transaction from what the state holds of them (their items within the longest `within` any
 * rule counts over, their live strikes), then the round's own entries added one at a time in batch
 * order, so two items of one author in one round count each other. Pure and in memory: one read per
 * round, none when no rule of the source has an author condition.
 */
import { Duration } from "effect"
import type * as Rule from "../domain/Rule.ts"
import { severityMeets } from "../domain/Rule.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import * as StrikePolicy from "../domain/StrikePolicy.ts"
import type { AuthorHistory, AuthorRead } from "../state/ItemStore.ts"

/**
 * What the record transaction must read for a source's rules at `now`, or undefined when none of them
 * has an author condition (the round then reads nothing of its authors).
 */
export const readOf = (settings: SourceSettings, keys: ReadonlyArray<string>, now: number): AuthorRead | undefined => {
  const rules = settings.rules ?? []
  const conditions = rules.flatMap((r) => (r.when.author === undefined ? [] : [r.when.author]))
  if (conditions.length === 0 || keys.length === 0) return undefined
  const within = Math.max(0, ...conditions.map((a) => (a.within === undefined ? 0 : Duration.toMillis(a.within))))
  const strikes = conditions.some((a) => a.strikesAtLeast !== undefined)
  const halfLife = settings.strikes?.halfLifeMillis ?? StrikePolicy.DEFAULT_HALF_LIFE_MILLIS
  return {
    keys,
    itemsSince: within > 0 ? now - within : undefined,
    strikesSince: strikes ? StrikePolicy.liveSince(now, halfLife) : undefined
  }
}

interface Seen {
  readonly source: string
  readonly reference: string
  readonly createdAt: number
  readonly type: string | null
  readonly severity: string | null
}

/** The round's authors, as of the record transaction; entries are added with {@link Authors.add}. */
export interface Authors {
  /** The author's context for the conditions, as of now (items and strikes added so far included). */
  readonly context: (key: string) => Rule.AuthorContext
  /** Adds an item of the round (and the strike its verdict earns, if any). */
  readonly add: (
    key: string,
    item: Seen & { readonly version: number },
    strike: { readonly weight: number; readonly at: number } | undefined
  ) => void
}

/** The round's authors from what the transaction read, at `now`, with the strikes' half-life. */
export const make = (history: AuthorHistory, now: number, halfLifeMillis: number): Authors => {
  // Items by author, by version key: a redelivered item is in the state already and added again.
  const items = new Map<string, Map<string, Seen>>()
  // Strikes by author, by item: at most one per item.
  const strikes = new Map<string, Map<string, StrikePolicy.Strike>>()
  const entryOf = <V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> => {
    const found = map.get(key)
    if (found !== undefined) return found
    const made = new Map<string, V>()
    map.set(key, made)
    return made
  }
  const itemsOf = (key: string) => entryOf(items, key)
  const strikesOf = (key: string) => entryOf(strikes, key)
  for (const i of history.items) itemsOf(i.authorKey).set(`${i.source}\u001f${i.reference}\u001f${i.version}`, i)
  for (const s of history.strikes) strikesOf(s.authorKey).set(`${s.source}\u001f${s.reference}`, s)

  const context = (key: string): Rule.AuthorContext => ({
    key,
    strikes: () => StrikePolicy.score(strikesOf(key).values(), now, halfLifeMillis),
    count: (withinMillis, types, severityAtLeast) => {
      // Items, not versions: an edited comment is one comment.
      const counted = new Set<string>()
      for (const i of itemsOf(key).values()) {
        if (i.createdAt < now - withinMillis) continue
        if (types !== undefined && (i.type === null || !types.includes(i.type))) continue
        if (severityAtLeast !== undefined && !severityMeets(i.severity ?? undefined, severityAtLeast)) continue
        counted.add(`${i.source}\u001f${i.reference}`)
      }
      return counted.size
    }
  })

  const add: Authors["add"] = (key, item, strike) => {
    itemsOf(key).set(`${item.source}\u001f${item.reference}\u001f${item.version}`, item)
    const byItem = strikesOf(key)
    const at = `${item.source}\u001f${item.reference}`
    // The stored strike of an item stays (ON CONFLICT DO NOTHING): a new version earns none more.
    if (strike !== undefined && !byItem.has(at)) byItem.set(at, strike)
  }

  return { context, add }
}
