/**
 * The API's `language` hint is an ISO 639-1 code of exactly 2 letters. Feeds write language tags
 * (RFC 5646, or RSS's `en-us`): `en-US`, `en-gb`, `fr_FR`, `EN`, `zh-Hant-TW`. Their primary subtag is
 * the ISO 639-1 code when it has 2 letters; anything else (`eng`, `x-klingon`, `english`) says nothing
 * the API can take, and is dropped rather than sent to be refused.
 *
 * @since 0.2.0
 */

const tag = /^\s*([A-Za-z]{2})(?:[-_].*)?$/su

/** The ISO 639-1 code of a language tag (`en-US` → `en`), or `undefined` when it has none. */
export const isoCode = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const match = tag.exec(value.trim())
  return match === null ? undefined : match[1]!.toLowerCase()
}
