/**
 * The `authors` section of `warden.yaml`: the strike policy (half-life, the verdicts that count and
 * their weight) and the appeal window.
 */
import { Schema } from "effect"
import { durationWithDefault, PositiveNumber, withDefault } from "../domain/internal/Schemas.ts"
import { VerdictWhen } from "../domain/Rule.ts"

/** One entry of `authors.strikes.verdicts`: the verdicts that count as a strike, and its weight. */
export const StrikeVerdict = Schema.Struct({
  when: VerdictWhen,
  weight: PositiveNumber.pipe(withDefault(1))
})

/** The strike policy (`authors.strikes`). */
export const StrikesSection = Schema.Struct({
  halfLife: durationWithDefault("7 days", "1 minute"),
  verdicts: Schema.Array(StrikeVerdict).pipe(withDefault([])),
  rejection: Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)).pipe(withDefault(1))
})
/** @see {@link StrikesSection} */
export type StrikesSection = typeof StrikesSection.Type

/** The `authors` section: strikes and appeals. */
export const AuthorsSection = Schema.Struct({
  strikes: StrikesSection.pipe(withDefault({})),
  appealWindow: durationWithDefault("30 days", 0)
})
/** @see {@link AuthorsSection} */
export type AuthorsSection = typeof AuthorsSection.Type
