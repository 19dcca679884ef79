/**
 * The username classifier: the text lexicon (insults, hatred) on the username with lookalike digits
 * undone (`1d10t` -> `idiot`), and impersonation patterns (`admin`, `moderator`, `support`, `staff`,
 * `official`...): `IMPERSONATION`, `HIGH` when lookalike characters were used to pass for staff.
 */
import * as Classifier from "./Classifier.ts"
import * as Language from "./Language.ts"
import * as Markers from "./Markers.ts"

const LOOKALIKES: Readonly<Record<string, string>> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "@": "a",
  $: "s",
  "!": "i",
  "|": "l"
}

const STAFF = ["administrator", "admin", "moderator", "support", "helpdesk", "official", "staff", "sysop", "webmaster"]
const STAFF_TOKENS = new Set(["mod", "mods", "team", "security", "system", "root"])

/** Undoes lookalike characters: `4dm1n` -> `admin`. */
export const unLeet = (name: string): string =>
  name
    .toLowerCase()
    .split("")
    .map((c) => LOOKALIKES[c] ?? c)
    .join("")

/** What the username classifier needs. */
export interface UsernameInput {
  readonly username: string
  readonly defaultLanguage?: string | undefined
  readonly industry?: string | undefined
  readonly customerContext?: string | undefined
}

/** Classifies a username. */
export const classify = (input: UsernameInput): Classifier.TextVerdict => {
  const markers = Markers.scan(input.username)
  const raw = markers.any ? Markers.strip(input.username) : input.username
  const plain = unLeet(raw)
  const tokens = plain.split(/[^a-z]+/).filter((t) => t !== "")
  const lexical = Classifier.classify({
    text: tokens.join(" ") || plain,
    language: markers.language ?? Language.resolve(raw, input.defaultLanguage),
    industry: input.industry,
    customerContext: input.customerContext,
    markers
  })
  const squashed = tokens.join("")
  const impersonation = STAFF.some((s) => squashed.includes(s)) || tokens.some((t) => STAFF_TOKENS.has(t))
  const lookalike = /[0-9@$!|]/.test(raw) && unLeet(raw) !== raw.toLowerCase()
  if (!impersonation || markers.classifications.length > 0) return lexical
  const classifications = [
    ...lexical.classifications.filter((c) => c !== "NEUTRAL" && c !== "SUPPORTIVE"),
    "IMPERSONATION"
  ]
  const severity = markers.severity ?? (lookalike ? "HIGH" : "MEDIUM")
  return {
    ...lexical,
    type: lexical.type === "HATEFUL" ? "HATEFUL" : "SUSPICIOUS",
    classifications,
    severity,
    recommendedAction: lookalike || lexical.type === "HATEFUL" ? "REMOVE" : "KEEP"
  }
}
