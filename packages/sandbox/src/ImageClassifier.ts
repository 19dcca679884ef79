/**
 * The image "classifier": no model, only markers, so image flows are testable. An image
 * classification name found in the URL (`https://img.example/weapons.png`, `.../[[WEAPONS]]`, any
 * case, `-` or `_`) or in the bytes (`[[WEAPONS]]` anywhere in them, or in a PNG `tEXt` chunk)
 * is returned (text classification markers excepted: those belong to the OCR text). The OCR text is the PNG `tEXt` chunk with keyword `OCR` (or `Comment`,
 * `Description`), or the URL's `ocr` query parameter.
 */
import { IMAGE_CLASSIFICATIONS, TEXT_CLASSIFICATIONS } from "@warden/core"
import * as Markers from "./Markers.ts"
import * as Png from "./internal/Png.ts"

/** The image as sent: by URL or as decoded bytes. */
export type ImageSource = { readonly url: string } | { readonly bytes: Uint8Array }

/** What the sandbox "sees" in an image. */
export interface ImageVerdict {
  readonly classifications: ReadonlyArray<string>
  /** The text an OCR would extract (`""` when none). */
  readonly ocrText: string
  /** Behaviour markers found in the URL, bytes or OCR text. */
  readonly markers: Markers.Markers
}

/** Text classification markers (e.g. in the OCR text inside the bytes) are not image classifications. */
const TEXT_NAMES: ReadonlySet<string> = new Set(TEXT_CLASSIFICATIONS)
const OCR_KEYWORDS = ["OCR", "Comment", "Description"]
const BY_LENGTH = [...IMAGE_CLASSIFICATIONS].sort((a, b) => b.length - a.length)

const namesIn = (text: string): Array<string> => {
  let haystack = `_${text.toLowerCase().replace(/[^a-z0-9]+/g, "_")}_`
  const found: Array<string> = []
  for (const name of BY_LENGTH) {
    const needle = `_${name.toLowerCase()}_`
    if (haystack.includes(needle)) {
      found.push(name)
      haystack = haystack.split(needle).join("_")
    }
  }
  return found
}

/** Classifies an image. */
export const classify = (image: ImageSource): ImageVerdict => {
  let text: string
  let ocrText = ""
  if ("url" in image) {
    text = image.url
    try {
      ocrText = new URL(image.url).searchParams.get("ocr") ?? ""
    } catch {
      ocrText = ""
    }
  } else {
    const chunks = Png.textChunks(image.bytes)
    for (const k of OCR_KEYWORDS) {
      const v = chunks.get(k)
      if (v !== undefined) {
        ocrText = v
        break
      }
    }
    const bytes = Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength)
    text = bytes.toString("latin1")
  }
  const markers = Markers.scan(text)
  const names = new Set<string>(namesIn(Markers.strip("url" in image ? text.split("?")[0]! : "")))
  for (const c of markers.classifications) names.add(c)
  // markers in the OCR text belong to the text analysis, but behaviour markers act on the whole call
  const ocrMarkers = Markers.scan(ocrText)
  const merged: Markers.Markers = ocrMarkers.any
    ? {
        ...markers,
        any: true,
        transient: markers.transient || ocrMarkers.transient,
        quota: markers.quota || ocrMarkers.quota,
        drop: markers.drop || ocrMarkers.drop,
        malformed: markers.malformed || ocrMarkers.malformed,
        stallMs: Math.max(markers.stallMs, ocrMarkers.stallMs)
      }
    : markers
  return {
    classifications: [...names].filter((n) => !TEXT_NAMES.has(n)),
    ocrText,
    markers: merged
  }
}
