/**
 * The verdict the daemon keeps for an item, whatever endpoint produced it: one flat record that
 * policies, sinks and the admin API read. Built leniently from the (partly assumed) response shapes.
 */
import { severityRank } from "@warden/core"
import type { Verdict } from "../domain/Verdict.ts"

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []
const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {}

type Loose = { readonly [K in keyof Verdict]: Verdict[K] | undefined }

const compact = (verdict: Loose): Verdict =>
  Object.fromEntries(Object.entries(verdict).filter(([, v]) => v !== undefined)) as unknown as Verdict

/** From a `textAnalysis`-shaped record (text and username responses, OCR fragment). */
export const fromTextAnalysis = (analysis: unknown): Verdict => {
  const a = record(analysis)
  return compact({
    type: str(a.type),
    classifications: strings(a.classifications),
    severity: str(a.severity),
    recommendedAction: str(a.recommendedAction),
    directedAt: str(a.directedAt),
    language: str(a.language)
  })
}

/** From the body of `POST /analyze/v1/text`. */
export const fromTextResponse = (body: unknown): Verdict => fromTextAnalysis(record(body).textAnalysis)

/** From the body of `POST /analyze/v1/username`. */
export const fromUsernameResponse = (body: unknown): Verdict => fromTextAnalysis(record(body).usernameAnalysis)

/**
 * From the body of `POST /analyze/v1/image`: the image classifications, plus the OCR text analysis
 * (its classifications are added, its severity and action taken) when OCR ran.
 */
export const fromImageResponse = (body: unknown): Verdict => {
  const image = record(record(body).imageAnalysis)
  const ocr = fromTextAnalysis(record(image.ocrAnalysis).textAnalysis)
  return compact({
    ...ocr,
    classifications: [...strings(image.classifications), ...ocr.classifications]
  })
}

/** From one legacy `Analysis` item. */
export const fromLegacyAnalysis = (analysis: unknown): Verdict => {
  const a = record(analysis)
  const meta = record(a.meta)
  return compact({
    type: str(a.type),
    classifications: strings(meta.classifications),
    severity: str(a.severity),
    recommendedAction: str(a.recommendedAction),
    directedAt: str(meta.directedAt),
    language: str(a.language)
  })
}

/**
 * Whether a `textAnalysis`-shaped record holds anything a verdict is made of: a `type`, a `severity`,
 * a `recommendedAction` or a `classifications` list. `directedAt` and `language` describe a verdict
 * but are none on their own. The response schema is "not shown" in the spec, so decoding stays
 * lenient; this is what tells "clean" apart from "the API answered something we cannot read".
 */
export const hasVerdictFields = (analysis: unknown): boolean => {
  if (typeof analysis !== "object" || analysis === null || Array.isArray(analysis)) return false
  const a = analysis as Record<string, unknown>
  return (
    typeof a.type === "string" ||
    typeof a.severity === "string" ||
    typeof a.recommendedAction === "string" ||
    Array.isArray(a.classifications)
  )
}

/** Whether the body of `POST /analyze/v1/text` holds a verdict. */
export const isRecognisedText = (body: unknown): boolean => hasVerdictFields(record(body).textAnalysis)

/** Whether the body of `POST /analyze/v1/username` holds a verdict. */
export const isRecognisedUsername = (body: unknown): boolean => hasVerdictFields(record(body).usernameAnalysis)

/** Whether the body of `POST /analyze/v1/image` holds a verdict: image classifications, or an OCR text verdict. */
export const isRecognisedImage = (body: unknown): boolean => {
  const image = record(record(body).imageAnalysis)
  return Array.isArray(image.classifications) || hasVerdictFields(record(image.ocrAnalysis).textAnalysis)
}

/** Whether one legacy `Analysis` item holds a verdict. */
export const isRecognisedLegacy = (analysis: unknown): boolean => {
  const a = record(analysis)
  return hasVerdictFields({ ...a, classifications: record(a.meta).classifications })
}

/**
 * Whether an answer of a v1 analyze endpoint holds a verdict (shared by the daemon and the CLI: an
 * answer without one is `unrecognised`, never a clean verdict, and `warden analyze` exits non-zero).
 */
export const isRecognised = (endpoint: "text" | "image" | "username", body: unknown): boolean =>
  endpoint === "text"
    ? isRecognisedText(body)
    : endpoint === "image"
      ? isRecognisedImage(body)
      : isRecognisedUsername(body)

/**
 * The shape of an unrecognised answer in a few characters (its top-level keys, sorted), so a log
 * line can say what came back once per kind instead of once per item. Never the values.
 */
export const shapeOf = (body: unknown): string => {
  if (Array.isArray(body)) return "[array]"
  if (typeof body !== "object" || body === null) return body === null ? "null" : typeof body
  const keys = Object.keys(body).sort()
  const shown = keys.slice(0, 8).join(",")
  return `{${shown}${keys.length > 8 ? ",..." : ""}}`
}

const actionRank = (action: string | undefined) => (action === "REMOVE" ? 1 : 0)

/** Index of the most severe verdict: highest severity, then a REMOVE over a KEEP, then the first. */
export const mostSevereIndex = (verdicts: ReadonlyArray<Verdict>): number => {
  let best = 0
  for (let i = 1; i < verdicts.length; i++) {
    const a = verdicts[i]!
    const b = verdicts[best]!
    const bySeverity = severityRank(a.severity ?? "NONE") - severityRank(b.severity ?? "NONE")
    if (bySeverity > 0 || (bySeverity === 0 && actionRank(a.recommendedAction) > actionRank(b.recommendedAction))) {
      best = i
    }
  }
  return best
}
