/**
 * What `customerContext` (a reseller field, image and username endpoints) does in the sandbox: it
 * changes what counts as "directed at a person", from two kinds of keywords an operator can write in
 * plain English. Deterministic and documented in the package README.
 *
 * - A term in double quotes (`The streamers are "kaycee" and "big_bo".`) names a person of the
 *   channel: a text or username containing it (whole words, any case) is directed at
 *   `SINGLE_PERSON`, as a second-person pronoun is.
 * - `role-play`, `roleplay`, `fiction` or `in character` says the channel's texts address characters:
 *   a second-person pronoun alone no longer counts as directed (an `@mention` or a quoted name still does).
 */
import { normalize } from "./Lexicon.ts"

/** The keywords read from a `customerContext`. */
export interface Context {
  /** The quoted person names, normalised (`" kaycee "`) for a whole-word `includes`. */
  readonly people: ReadonlyArray<string>
  /** Whether second-person pronouns address characters rather than people. */
  readonly fiction: boolean
}

/** No context: the classifier's defaults. */
export const NONE: Context = { people: [], fiction: false }

const QUOTED = /"([^"\n]{1,64})"/gu
const FICTION = /\b(?:role-?play|fiction|in[ -]character)\b/iu

/** Reads the keywords of a `customerContext` (none when it is absent). */
export const parse = (customerContext: string | undefined): Context => {
  if (customerContext === undefined || customerContext.trim() === "") return NONE
  const people: Array<string> = []
  for (const m of customerContext.matchAll(QUOTED)) {
    const name = normalize(m[1]!)
    if (name.trim() !== "" && !people.includes(name)) people.push(name)
  }
  return { people, fiction: FICTION.test(customerContext) }
}

/** Whether a normalised text (as `Lexicon.normalize` makes it) names one of the context's people. */
export const namesPerson = (context: Context, normalized: string): boolean =>
  context.people.some((name) => normalized.includes(name))
