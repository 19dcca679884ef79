/**
 * The numeric limits of the Content Analysis and Feedback API, as the spec's "Limits" table gives them.
 * Every schema, the client's local checks and the sandbox read them from here.
 */

/** Maximum characters of `text` in `POST /analyze/v1/text`. */
export const TEXT_MAX_LENGTH = 10_000
/** Maximum characters of a `reference` (request, post, author). */
export const REFERENCE_MAX_LENGTH = 256
/** Maximum characters of `author.username`. */
export const USERNAME_MAX_LENGTH = 255
/** Maximum characters of `post.title`. */
export const POST_TITLE_MAX_LENGTH = 2048
/** Messages per legacy batch call. */
export const LEGACY_MAX_MESSAGES = 100
/** Characters per legacy message text. */
export const LEGACY_TEXT_MAX_LENGTH = 1000
/** Recommended bounds of the reseller `customerContext` (advice, not a rule: never enforced). */
export const CUSTOMER_CONTEXT_RECOMMENDED = { min: 512, max: 1024 } as const
