/**
 * Dedupe, the batch's first step: which events of a batch need analysing, and as which version.
 *
 * An item is identified by its reference; its content hash tells an edit from a redelivery. An
 * unchanged redelivery (the at-least-once cluster delivers a batch again after a crash) costs no API
 * call; an edit is analysed as the next version; an item recorded without a verdict (API down, an
 * answer without one, an operator's `warden reanalyse`) is analysed again.
 */
import type { LatestVersion } from "../domain/ItemVersion.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import type { Handling } from "./Handling.ts"
import type * as BatchEvent from "./BatchEvent.ts"
import * as ContentHash from "./ContentHash.ts"

/** An event to analyse, as the version it will be recorded as. */
export interface Work {
  readonly event: BatchEvent.Upsert
  readonly version: number
  readonly contentHash: string
}

/** What dedupe makes of an upsert: work, or nothing to do (`unchanged`, or a kind the source does not analyse). */
export type Planned = Work | "unchanged" | "skipped"

/**
 * Splits events into rounds holding at most one event per reference, keeping each reference's order:
 * a round's items are independent, so they are analysed together and recorded in one transaction.
 */
export const rounds = <E extends { readonly reference: string }>(events: ReadonlyArray<E>): Array<Array<E>> => {
  const out: Array<Array<E>> = []
  const depth = new Map<string, number>()
  for (const event of events) {
    const d = depth.get(event.reference) ?? 0
    depth.set(event.reference, d + 1)
    const round = out[d]
    if (round === undefined) out.push([event])
    else round.push(event)
  }
  return out
}

/**
 * Plans a round's upserts (one per reference) against the newest recorded version of each.
 * `degraded`: the batch is recorded without the API, so an item without a verdict is not redone.
 * `reanalysis`: the events are stored versions sent again for a verdict; one that is no longer its
 * item's newest (an edit was recorded since the sweep read it) is left alone: recording it would
 * make the older text the newest version.
 */
export const plan = (
  settings: SourceSettings,
  events: ReadonlyArray<BatchEvent.Upsert>,
  latest: ReadonlyMap<string, LatestVersion>,
  how: Handling
): Array<Planned> =>
  events.map((event) => {
    const contentHash = ContentHash.of(event.content)
    const known = latest.get(event.reference)
    if (how.reanalysis === true && known?.contentHash !== contentHash) return "unchanged"
    if (known !== undefined && known.contentHash === contentHash) {
      // An item recorded without a verdict (API down, or an answer without one) is analysed again.
      const noVerdict = known.status === "unanalysed" || known.status === "unrecognised" || known.reanalyse === true
      if (!noVerdict || how.degraded !== undefined) return "unchanged"
    }
    if (!settings.analyse.has(event.content.type)) return "skipped"
    return { event, version: known !== undefined ? known.version + 1 : 1, contentHash }
  })
