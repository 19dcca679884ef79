/**
 * The text classifier: deterministic, fast, good enough to demo. A multilingual lexicon gives the
 * classifications (INSULT, HATRED, THREAT, CRITICISM, SUPPORTIVE, NEUTRAL), severity and
 * recommended action follow from them, `directedAt` from pronouns and mentions, the language from
 * `eld`; magic markers (`[[THREAT]]`, `[[LANG:fr]]`, ...) override any of it.
 */
import type { TextAnalysis } from "@warden/core"
import * as CustomerContext from "./CustomerContext.ts"
import * as Industry from "./Industry.ts"
import * as Language from "./Language.ts"
import { type Category, normalize, PHRASES, SECOND_PERSON, WORDS } from "./Lexicon.ts"
import * as Markers from "./Markers.ts"

/** What the classifier needs besides the text. */
export interface TextInput {
  readonly text: string
  /** The request's `language` hint: trusted as given. */
  readonly language?: string | undefined
  /** A reseller's `defaultLanguage`: used only when detection is unsure. */
  readonly defaultLanguage?: string | undefined
  /** A reseller's `industry`: moves the severity of insults (`Industry.ts`). */
  readonly industry?: string | undefined
  /** A reseller's `customerContext`: its keywords change what is directed at a person (`CustomerContext.ts`). */
  readonly customerContext?: string | undefined
  /** Markers already read from the text (saves a scan). */
  readonly markers?: Markers.Markers | undefined
}

/** A full text verdict (every field of `TextAnalysis` present). */
export interface TextVerdict {
  readonly type: string
  readonly classifications: ReadonlyArray<string>
  readonly severity: string
  readonly directedAt: string
  readonly language: string
  readonly recommendedAction: string
}

const HARMFUL = ["THREAT", "HATRED", "INSULT"] as const
const HARMFUL_SET: ReadonlySet<string> = new Set(HARMFUL)

interface Hits {
  THREAT: number
  HATRED: number
  INSULT: number
  CRITICISM: number
  SUPPORTIVE: number
  HATE_VERB: number
  GROUP: number
}

const countHits = (normalized: string): { hits: Hits; secondPerson: boolean } => {
  const hits: Hits = { THREAT: 0, HATRED: 0, INSULT: 0, CRITICISM: 0, SUPPORTIVE: 0, HATE_VERB: 0, GROUP: 0 }
  let secondPerson = false
  let start = 1
  while (start < normalized.length) {
    const end = normalized.indexOf(" ", start)
    if (end === -1) break
    const word = normalized.slice(start, end)
    const category: Category | undefined = WORDS.get(word)
    if (category !== undefined) hits[category] += 1
    if (!secondPerson && SECOND_PERSON.has(word)) secondPerson = true
    start = end + 1
  }
  for (const [phrase, category] of PHRASES) if (normalized.includes(phrase)) hits[category] += 1
  return { hits, secondPerson }
}

/** The `type` of a verdict from its classifications. */
export const typeOf = (classifications: ReadonlyArray<string>): string =>
  classifications.some((c) => HARMFUL_SET.has(c))
    ? "HATEFUL"
    : classifications.includes("SUPPORTIVE")
      ? "SUPPORTIVE"
      : "NEUTRAL"

const severityOf = (
  classifications: ReadonlyArray<string>,
  hits: Hits | undefined,
  directed: boolean,
  industry: string | undefined
): string => {
  if (classifications.includes("THREAT")) return directed ? "VERY_HIGH" : "HIGH"
  if (classifications.includes("HATRED")) return "HIGH"
  if (classifications.includes("INSULT")) return Industry.insultSeverity(hits?.INSULT ?? 1, industry)
  if (classifications.includes("CRITICISM")) return "LOW"
  return "NONE"
}

/** `REMOVE` for hateful content of severity `MEDIUM` or more, else `KEEP`. */
export const actionOf = (type: string, severity: string): string =>
  type === "HATEFUL" && severity !== "NONE" && severity !== "LOW" ? "REMOVE" : "KEEP"

/** Classifies a text. */
export const classify = (input: TextInput): TextVerdict => {
  const markers = input.markers ?? Markers.scan(input.text)
  const text = markers.any ? Markers.strip(input.text) : input.text
  const normalized = normalize(text)
  const { hits, secondPerson } = countHits(normalized)
  const mention = normalized.includes(" @")
  const context = CustomerContext.parse(input.customerContext)
  // In a role-play channel "you" addresses a character; a quoted name of the channel is a person.
  const person = (secondPerson && !context.fiction) || CustomerContext.namesPerson(context, normalized)
  const directed = person || mention
  const directedAt = markers.directedAt ?? (mention ? "USER" : person ? "SINGLE_PERSON" : "UNDEFINED")

  let classifications: Array<string>
  const forced = markers.classifications
  if (forced.length > 0) classifications = [...forced]
  else {
    classifications = []
    if (hits.THREAT > 0) classifications.push("THREAT")
    if (hits.HATRED > 0 || (hits.HATE_VERB > 0 && hits.GROUP > 0)) classifications.push("HATRED")
    if (hits.INSULT > 0) classifications.push("INSULT")
    const criticism = hits.CRITICISM + (hits.HATE_VERB > 0 && hits.GROUP === 0 ? 1 : 0)
    if (classifications.length > 0) {
      if (criticism > 0) classifications.push("CRITICISM")
    } else if (criticism > 0 && criticism >= hits.SUPPORTIVE) classifications.push("CRITICISM")
    else if (hits.SUPPORTIVE > 0) classifications.push("SUPPORTIVE")
    else classifications.push("NEUTRAL")
  }
  const type = typeOf(classifications)
  const severity =
    markers.severity ?? severityOf(classifications, forced.length > 0 ? undefined : hits, directed, input.industry)
  const language = markers.language ?? input.language?.toLowerCase() ?? Language.resolve(text, input.defaultLanguage)
  return { type, classifications, severity, directedAt, language, recommendedAction: actionOf(type, severity) }
}

/** The verdict as the API's `TextAnalysis`, on the wire. */
export const toTextAnalysis = (v: TextVerdict): (typeof TextAnalysis)["Encoded"] => ({
  type: v.type,
  classifications: v.classifications,
  severity: v.severity,
  directedAt: v.directedAt,
  language: v.language,
  recommendedAction: v.recommendedAction
})
