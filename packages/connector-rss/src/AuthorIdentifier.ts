/**
 * A feed author's `author.identifier`, the stable name under which Warden keeps an author's history and
 * `warden erase --author` finds their items. Feeds have no user ids, so it is derived, in this order:
 * 1. the author's URI (Atom `<uri>`, Atom 0.3 `<url>`, JSON Feed's author `url`), absolute, as written
 *    (`https://example.com/~ann`);
 * 2. else the author's email address (Atom `<email>`, RSS `<author>` as `ann@example.com (Ann)`),
 *    lower-cased, as a `mailto:` URI (`mailto:ann@example.com`). A shared no-reply address
 *    (`noreply@blogger.com`, which Blogger gives every commenter) names no one and is skipped;
 * 3. else the feed's id and the author's name, case-folded: `name:<feedId>/<name>` (`name:blog/ann smith`),
 *    the name lower-cased after Unicode NFKC, runs of white space as one space. Two people who sign
 *    with the same name in one feed share it: a feed says no more.
 *
 * @since 0.2.0
 */
import type { FeedAuthor } from "./FeedParser.ts"

/** Local parts of addresses that are nobody's: every author of some feeds has one of them. */
const nobody = /^(?:no-?reply|do-?not-?reply|nobody|no-?email|none|unknown|anonymous|invalid)$/iu

/** A usable email address, lower-cased; `undefined` for a shared no-reply address or something else. */
const emailOf = (email: string | undefined): string | undefined => {
  const address = email?.trim().toLowerCase()
  if (address === undefined || !/^[^\s@]+@[^\s@]+$/u.test(address)) return undefined
  return nobody.test(address.slice(0, address.indexOf("@"))) ? undefined : address
}

/** A name folded to compare equal however it was capitalised, composed or spaced. */
export const foldName = (name: string): string => name.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").trim()

/** The identifier of `author` in the feed `feedId` (see the module's rules). */
export const identifier = (feedId: string, author: FeedAuthor): string => {
  if (author.uri !== undefined && /^[a-z][a-z0-9+.-]*:/iu.test(author.uri)) return author.uri
  const email = emailOf(author.email)
  if (email !== undefined) return `mailto:${email}`
  return `name:${feedId}/${foldName(author.name)}`
}
