/**
 * Which region a call goes to. `pinned` (default): always the configured region. `failover`: an
 * ordered list of regions; a call whose region is unreachable or still answers 503 after its retries
 * moves on to the next region of the list, which then stays current until `recoverAfter` has passed,
 * when the first region of the list is tried again. One key works in every region.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Region } from "./Region.ts"

/** Region settings. */
export type Options =
  | { readonly _tag: "Pinned"; readonly region: Region }
  | { readonly _tag: "Failover"; readonly regions: ReadonlyArray<Region>; readonly recoverAfter: Duration.Input }

/** Always use `region`. */
export const pinned = (region: Region): Options => ({ _tag: "Pinned", region })

/** Use `regions` in order, moving on when one is down; go back to the first after `recoverAfter` (default 60 s). */
export const failover = (
  regions: readonly [Region, ...ReadonlyArray<Region>],
  options: { readonly recoverAfter?: Duration.Input | undefined } = {}
): Options => ({ _tag: "Failover", regions, recoverAfter: options.recoverAfter ?? Duration.seconds(60) })

/** The regions a policy may use, in order. */
export const regionsOf = (options: Options): ReadonlyArray<Region> =>
  options._tag === "Pinned" ? [options.region] : options.regions

/** The mutable state of a policy: which region is current. */
export interface State {
  /** The regions to try for the next call, current first, then the rest of the list in order. */
  readonly plan: Effect.Effect<ReadonlyArray<Region>>
  /** Records that `region` is down: the next region of the list becomes current. */
  readonly markDown: (region: Region) => Effect.Effect<void>
  /** The current region. */
  readonly current: Effect.Effect<Region>
}

/** Builds the state of a policy. */
export const makeState = (options: Options): State => {
  const regions = regionsOf(options)
  let index = 0
  let movedAt = 0
  const recoverAfter = options._tag === "Failover" ? Duration.toMillis(options.recoverAfter) : Infinity
  const currentIndex = Effect.map(Clock.currentTimeMillis, (now) => {
    if (index !== 0 && now - movedAt >= recoverAfter) index = 0
    return index
  })
  return {
    plan: Effect.map(currentIndex, (i) => [...regions.slice(i), ...regions.slice(0, i)]),
    current: Effect.map(currentIndex, (i) => regions[i]!),
    markDown: (region) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const i = regions.indexOf(region)
        if (i === index && regions.length > 1) {
          index = (i + 1) % regions.length
          movedAt = now
        }
      })
  }
}
