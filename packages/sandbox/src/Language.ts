/**
 * Language detection with `eld` (its small static database): of the detectors measured on short
 * texts in en/fr/de/es/it/nl (`tinyld`, `eld`, `franc-min`; see docs/BENCHMARKS.md) it was the most
 * accurate and by far the fastest (~13 µs a call).
 */
import { eld } from "eld/small"

/** A detection: the ISO 639-1 code (`""` when none) and whether the signal is strong enough to trust. */
export interface Detection {
  readonly language: string
  readonly reliable: boolean
}

/** Detects the language of a text. */
export const detect = (text: string): Detection => {
  if (text.trim().length === 0) return { language: "", reliable: false }
  const result = eld.detect(text)
  return { language: result.language, reliable: result.language !== "" && result.isReliable() }
}

/** The language reported when detection is unsure and no `defaultLanguage` was given. */
export const FALLBACK_LANGUAGE = "en"

/** The language to report: the detection when reliable, else `fallback` (a reseller's `defaultLanguage`), else `en`. */
export const resolve = (text: string, fallback: string | undefined): string => {
  const d = detect(text)
  if (d.reliable) return d.language
  return fallback?.toLowerCase() ?? FALLBACK_LANGUAGE
}
