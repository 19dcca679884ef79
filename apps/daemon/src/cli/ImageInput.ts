/**
 * What `warden analyze image` was given, as the API wants it: an http(s) URL is `imageUrl`; a file is
 * read and base64-encoded as `imageData`; base64 text is sent as it is; raw bytes on stdin (a PNG
 * piped in) are base64-encoded for the user. An argument that is none of these is "no such file",
 * never sent as if it were image data: since a path like `photos/cat12` is also valid base64, an
 * argument is taken as base64 only when it decodes to a known image format (PNG, JPEG, GIF, WebP,
 * BMP, TIFF); other bytes can be piped on stdin.
 */
import { existsSync, readFileSync, statSync } from "node:fs"

/** The image field of an analyze-image body. */
export type Image = { readonly imageUrl: string } | { readonly imageData: string }

/** Why the input is not an image the command can send. */
export class ImageInputError extends Error {
  readonly _tag = "UsageError"
}

const URL_PATTERN = /^https?:\/\/\S+$/i
const BASE64_TEXT = /^[A-Za-z0-9+/]+={0,2}$/

/** Magic numbers of the image formats a user is likely to send: PNG, JPEG, GIF, WebP, BMP, TIFF. */
const looksLikeImage = (bytes: Uint8Array): boolean => {
  const starts = (...sig: Array<number>) => sig.every((b, i) => bytes[i] === b)
  return (
    starts(0x89, 0x50, 0x4e, 0x47) ||
    starts(0xff, 0xd8, 0xff) ||
    starts(0x47, 0x49, 0x46, 0x38) ||
    (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45) ||
    starts(0x42, 0x4d) ||
    starts(0x49, 0x49, 0x2a, 0x00) ||
    starts(0x4d, 0x4d, 0x00, 0x2a)
  )
}

/** Base64 text (whitespace ignored) that decodes to image bytes, or `undefined`. */
const base64Image = (text: string): string | undefined => {
  const compact = text.replace(/\s+/g, "")
  if (compact.length < 8 || compact.length % 4 !== 0 || !BASE64_TEXT.test(compact)) return undefined
  return looksLikeImage(new Uint8Array(Buffer.from(compact.slice(0, 24), "base64"))) ? compact : undefined
}

const HINT = "give an http(s) URL, a file path, or base64 image bytes"

/** The image named by the command's argument. */
export const fromArgument = (argument: string): Image => {
  const value = argument.trim()
  if (value === "") throw new ImageInputError(`no image: ${HINT}`)
  if (URL_PATTERN.test(value)) return { imageUrl: value }
  if (existsSync(value)) {
    if (statSync(value).isDirectory()) throw new ImageInputError(`${value}: is a directory, not an image file`)
    return { imageData: readFileSync(value).toString("base64") }
  }
  const data = base64Image(value)
  if (data !== undefined) return { imageData: data }
  throw new ImageInputError(`${value}: no such file (${HINT})`)
}

/** The image piped on stdin: a URL line, base64 text, or the raw bytes of the image. */
export const fromStdin = (bytes: Uint8Array): Image => {
  if (bytes.length === 0) throw new ImageInputError(`no image on stdin: ${HINT}`)
  if (looksLikeImage(bytes)) return { imageData: Buffer.from(bytes).toString("base64") }
  const text = new TextDecoder().decode(bytes).trim()
  if (URL_PATTERN.test(text)) return { imageUrl: text }
  const compact = text.replace(/\s+/g, "")
  // base64 text is sent as it is; anything else is taken as the image's own bytes
  const isBase64 = compact.length % 4 === 0 && BASE64_TEXT.test(compact)
  return { imageData: isBase64 ? compact : Buffer.from(bytes).toString("base64") }
}
