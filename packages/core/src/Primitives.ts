/**
 * The scalar formats the spec names (uuid, date-time, uri, ISO codes, base64), each one schema with the
 * rule's message, its JSON Schema `format`/`pattern`, and a generation hint for property tests.
 */
import * as Schema from "effect/Schema"
import * as Characters from "./Characters.ts"
import { REFERENCE_MAX_LENGTH } from "./Limits.ts"

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/u

/** A `channelId`: a UUID in its textual form. */
export const ChannelId = Schema.String.check(
  Schema.isUUID(undefined, { message: "must be a UUID (e.g. 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c)" })
).annotate({ description: "Channel the content belongs to, a UUID provided by the operator" })

/** An ISO 8601 / RFC 3339 date-time with a time zone, e.g. `2024-05-01T12:30:00Z`. */
export const IsoDateTime = Schema.String.check(
  Schema.makeFilter<string>((s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)), {
    message: "must be an ISO 8601 date-time with a time zone, e.g. 2024-05-01T12:30:00Z",
    toJsonSchema: () => ({ format: "date-time" }),
    arbitraryConstraint: {
      patterns: [{ source: "^20[0-3]\\d-0[1-9]-[0-2][1-8]T[01]\\d:[0-5]\\d:[0-5]\\dZ$", flags: "u" }]
    }
  })
)

/** An absolute URI with a scheme, e.g. `https://example.com/post/1`. */
export const Uri = Schema.String.check(
  Schema.makeFilter<string>((s) => /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/u.test(s) && URL.canParse(s), {
    message: "must be an absolute URI, e.g. https://example.com/page",
    toJsonSchema: () => ({ format: "uri" }),
    arbitraryConstraint: { patterns: [{ source: "^https://[a-z]{1,12}\\.example/[a-z0-9]{0,16}$", flags: "u" }] }
  })
)

/** An ISO 639-1 language code: exactly 2 letters (`en`, `fr`). */
export const LanguageCode = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z]{2}$/u, { message: "must be an ISO 639-1 code of exactly 2 letters, e.g. en" })
)

/** An ISO 3166-1 alpha-2 country code: exactly 2 uppercase letters (`BE`, `US`). */
export const CountryCode = Schema.String.check(
  Schema.isPattern(/^[A-Z]{2}$/u, { message: "must be an ISO 3166-1 alpha-2 code of exactly 2 uppercase letters" })
)

/** A caller's stable identifier of a piece of content: at most 256 characters. */
export const Reference = Schema.String.check(Characters.isAtMost(REFERENCE_MAX_LENGTH))

/** Inline bytes, base64-encoded (standard alphabet, padded), not empty. */
export const Base64 = Schema.String.check(
  Schema.isNonEmpty({ message: "must not be empty" }),
  Schema.isBase64({ message: "must be base64-encoded bytes" })
)

/** A string of at most `max` characters (code points, `Characters`), with a message naming the limit. */
export const maxLengthString = (max: number) => Schema.String.check(Characters.isAtMost(max))

/** A UUID string, e.g. the `id` of recorded feedback. */
export const Uuid = Schema.String.check(Schema.isUUID(undefined, { message: "must be a UUID" }))
