/**
 * Magic markers: `[[NAME]]` or `[[NAME:arg]]` in a text, username, image URL, image bytes, legacy
 * message or feedback `notes` make the sandbox answer in a fixed way, so a test can ask for exactly the
 * verdict or failure it needs. The full list is in the package README.
 */

/** Markers that change how the request is answered rather than the verdict. */
export interface Behaviour {
  /** `[[TRANSIENT]]`: 503 `TRANSIENT_ERROR`. */
  readonly transient: boolean
  /** `[[QUOTA]]`: 429 `QUOTA_ERROR`. */
  readonly quota: boolean
  /** `[[DROP]]`: connection destroyed without an answer. */
  readonly drop: boolean
  /** `[[MALFORMED]]`: 200 with a truncated JSON body. */
  readonly malformed: boolean
  /** `[[STALL:ms]]`: wait that long before answering (0: no stall). */
  readonly stallMs: number
}

/** Markers that fix the verdict. */
export interface Verdict {
  /** Classification markers, e.g. `[[THREAT]]`, `[[WEAPONS]]` (any upper-case name that is not a behaviour marker). */
  readonly classifications: ReadonlyArray<string>
  /** `[[LANG:xx]]`. */
  readonly language: string | undefined
  /** `[[SEVERITY:HIGH]]`. */
  readonly severity: string | undefined
  /** `[[DIRECTED:USER]]`. */
  readonly directedAt: string | undefined
}

/** Every marker found in a text. */
export interface Markers extends Behaviour, Verdict {
  readonly any: boolean
}

const MARKER = /\[\[([A-Z][A-Z0-9_]*)(?::([^\]\s]{0,64}))?\]\]/g
const MAX_STALL_MS = 600_000
const BEHAVIOURS = new Set(["TRANSIENT", "QUOTA", "DROP", "MALFORMED", "STALL", "LANG", "SEVERITY", "DIRECTED"])

/** No marker. */
export const NONE: Markers = {
  any: false,
  transient: false,
  quota: false,
  drop: false,
  malformed: false,
  stallMs: 0,
  classifications: [],
  language: undefined,
  severity: undefined,
  directedAt: undefined
}

/** Reads the markers of one or more texts. Cheap when there is none (one `indexOf`). */
export const scan = (...texts: ReadonlyArray<string | undefined>): Markers => {
  let found: {
    transient: boolean
    quota: boolean
    drop: boolean
    malformed: boolean
    stallMs: number
    classifications: Array<string>
    language: string | undefined
    severity: string | undefined
    directedAt: string | undefined
  } | null = null
  for (const text of texts) {
    if (text === undefined || text.indexOf("[[") === -1) continue
    for (const m of text.matchAll(MARKER)) {
      found ??= { ...NONE, classifications: [] }
      const [, name = "", arg] = m
      switch (name) {
        case "TRANSIENT":
          found.transient = true
          break
        case "QUOTA":
          found.quota = true
          break
        case "DROP":
          found.drop = true
          break
        case "MALFORMED":
          found.malformed = true
          break
        case "STALL": {
          const ms = Number(arg ?? "1000")
          if (Number.isInteger(ms) && ms >= 0) found.stallMs = Math.min(MAX_STALL_MS, ms)
          break
        }
        case "LANG":
          if (arg !== undefined && /^[a-zA-Z]{2}$/.test(arg)) found.language = arg.toLowerCase()
          break
        case "SEVERITY":
          if (arg !== undefined && /^[A-Z_]+$/.test(arg)) found.severity = arg
          break
        case "DIRECTED":
          if (arg !== undefined && /^[A-Z_]+$/.test(arg)) found.directedAt = arg
          break
        default:
          if (!BEHAVIOURS.has(name) && !found.classifications.includes(name)) found.classifications.push(name)
      }
    }
  }
  return found === null ? NONE : { any: true, ...found }
}

/** The text without its markers (what language detection and the lexicon see). */
export const strip = (text: string): string => (text.indexOf("[[") === -1 ? text : text.replace(MARKER, " "))
