/**
 * The verdict the daemon keeps for an item, whatever endpoint produced it: one flat record that
 * policies, sinks and the admin API read. Built leniently from the (partly assumed) response shapes.
 */
import { severityRank } from "@warden/core"

/** A verdict on one item (or one segment of it). */
export interface Verdict {
  readonly type?: string
  readonly classifications: ReadonlyArray<string>
  readonly severity?: string
  readonly recommendedAction?: string
  readonly directedAt?: string
  readonly language?: string
}

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
