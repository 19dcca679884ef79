/**
 * The review queue's rows as the console orders and words them: the API's order (most severe, then
 * oldest) kept when rows arrive live, each row's key, and what a decision will do on the platform
 * (RSS: recorded in Warden only; YouTube: published or rejected there), said before the moderator decides.
 */
import { langOf, type ReviewItem, SEVERITIES, type Verdict } from "./model.ts"

/** A row's key: one per item version and kind (an appeal of an item is a row of its own). */
export const rowKey = (r: Pick<ReviewItem, "source" | "reference" | "version" | "kind">) =>
  `${r.source}\u001f${r.reference}\u001f${r.version}\u001f${r.kind}`

/** The verdict of a row (an empty one when it has none). */
export const verdictOfRow = (r: Pick<ReviewItem, "verdict">): Verdict => (r.verdict ?? {}) as Verdict

/** The `lang` of a row's content (the verdict's language, else the event's), when it is a language code. */
export const langOfRow = (r: Pick<ReviewItem, "language">) =>
  r.language === null ? undefined : langOf({ language: r.language })

const rank = (r: ReviewItem) => {
  const severity = verdictOfRow(r).severity
  return severity === undefined ? -1 : (SEVERITIES as ReadonlyArray<string>).indexOf(severity)
}

/** The queue's order: most severe first, then oldest (as `GET /api/review?state=pending` answers). */
export const inQueueOrder = (rows: ReadonlyArray<ReviewItem>): Array<ReviewItem> =>
  [...rows].sort((a, b) => rank(b) - rank(a) || Date.parse(a.createdAt) - Date.parse(b.createdAt))

/** The text a moderator reads for a row: the comment, a username, or an image's address. */
export const textOf = (r: ReviewItem): string => r.content.text ?? r.content.username ?? r.content.url ?? ""

/** What approving and rejecting will do on the platform, in words (before the moderator decides). */
export const platformWords = (r: ReviewItem): string => {
  const p = r.platform
  if (p.note !== undefined && !p.canRemove && !p.canRestore) {
    return p.note.startsWith("not possible")
      ? "No platform action is possible on this source: a reject (or an approve) is recorded in Warden only."
      : `On the platform: ${p.note}. The decision is recorded in Warden.`
  }
  if (r.kind === "appeal")
    return p.canRestore
      ? "Upholding restores the item on the platform; denying leaves it as it is."
      : "Upholding is recorded (nothing to restore on the platform); denying leaves it as it is."
  const approve = p.held
    ? p.canRestore
      ? "approving publishes it on the platform"
      : "approving leaves it held on the platform"
    : "approving leaves it up on the platform"
  const reject = p.canRemove
    ? p.held
      ? "rejecting rejects it on the platform"
      : "rejecting removes it from the platform"
    : "rejecting is recorded in Warden only"
  return `${p.held ? "Held for review on the platform: " : ""}${approve}; ${reject}.`
}

/** The words of a decision's buttons for a row: an appeal is upheld or denied. */
export const verbs = (r: Pick<ReviewItem, "kind">) =>
  r.kind === "appeal"
    ? { approve: "Uphold", reject: "Deny", approved: "Upheld", rejected: "Denied" }
    : { approve: "Approve", reject: "Reject", approved: "Approved", rejected: "Rejected" }
