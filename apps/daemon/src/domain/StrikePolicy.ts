/**
 * Strikes against an author (issue 37): which verdicts count, a moderator's rejection, and how a
 * strike's weight decays. A strike of weight `w` recorded at `at` weighs `w * 0.5^((now - at) /
 * halfLife)` now; the author's score is the sum. After ten half-lives a strike weighs under 0.1% of
 * its weight: the engine reads only those younger than that ({@link liveSince}).
 */
import { Schema } from "effect"
import * as Rule from "./Rule.ts"
import type { Verdict } from "./Verdict.ts"

/** The strike policy, decoded from `authors.strikes`. */
export const StrikePolicy = Schema.Struct({
  /** A strike's weight halves every this many milliseconds. */
  halfLifeMillis: Schema.Number,
  /** Which verdicts count as a strike, and their weight: the first match wins. */
  verdicts: Schema.Array(Schema.Struct({ when: Rule.VerdictWhen, weight: Schema.Number })),
  /** The weight of a moderator's rejection (0: rejections do not count). */
  rejection: Schema.Number
})
/** @see {@link StrikePolicy} */
export type StrikePolicy = typeof StrikePolicy.Type

/** The default half-life: 7 days. */
export const DEFAULT_HALF_LIFE_MILLIS = 7 * 24 * 3_600_000

/** A policy under which nothing counts: verdicts none, rejections 0. */
export const none: StrikePolicy = { halfLifeMillis: DEFAULT_HALF_LIFE_MILLIS, verdicts: [], rejection: 0 }

/** Whether the policy counts anything at record time (a verdict strike): the record step needs the author then. */
export const countsVerdicts = (policy: StrikePolicy | undefined): boolean =>
  policy !== undefined && policy.verdicts.length > 0

/** The weight of the strike a verdict earns (the first matching entry), or undefined when it earns none. */
export const weightOf = (policy: StrikePolicy | undefined, verdict: Verdict): number | undefined =>
  policy?.verdicts.find((v) => Rule.matches(v.when, verdict))?.weight

/** A strike's weight at `now`. */
export const decayed = (weight: number, at: number, now: number, halfLifeMillis: number): number =>
  weight * 0.5 ** (Math.max(0, now - at) / halfLifeMillis)

/** The oldest strike worth reading at `now`: ten half-lives back (a weight under 0.1% of itself). */
export const liveSince = (now: number, halfLifeMillis: number): number => now - 10 * halfLifeMillis

/** A strike as the score reads it. */
export interface Strike {
  readonly weight: number
  readonly at: number
}

/** The decayed score of live strikes at `now`. */
export const score = (strikes: Iterable<Strike>, now: number, halfLifeMillis: number): number => {
  let total = 0
  for (const s of strikes) total += decayed(s.weight, s.at, now, halfLifeMillis)
  return total
}
