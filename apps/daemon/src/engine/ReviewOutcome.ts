/**
 * The rules of a review decision, apart from the service that records it (ReviewService.ts): what an
 * outcome is called, when a verdict is harmful, and what feedback a decision sends the API.
 */
import type { Verdict } from "../domain/Verdict.ts"
import type { Review } from "../state/ReviewStore.ts"
import type { FeedbackInput } from "./FeedbackService.ts"

/** The outcome a decision is counted and shown as (`upheld` / `denied` for an appeal). */
export const outcomeOf = (review: Pick<Review, "kind" | "state">): string =>
  review.kind === "appeal"
    ? review.state === "approved"
      ? "upheld"
      : review.state === "rejected"
        ? "denied"
        : review.state
    : review.state

/** Whether a verdict says the item is harmful (what a moderator's approval contradicts). */
export const harmful = (verdict: Verdict | null | undefined): boolean =>
  verdict !== null && verdict !== undefined && (verdict.type === "HATEFUL" || verdict.recommendedAction === "REMOVE")

/**
 * The feedback a decision calls for, or why none: an approval of a harmful verdict removes the ticked
 * classifications (default: the verdict's); a rejection of a harmless one adds the ticked ones (none
 * ticked: the note says so); an upheld appeal of a harmful verdict removes the verdict's. Always
 * `confidence: HIGH` (a trust-and-safety team's decision); the moderator's note as `notes`.
 */
export const feedbackFor = (
  review: Pick<Review, "kind">,
  decision: "approve" | "reject",
  verdict: Verdict | null | undefined,
  note: string | undefined,
  ticked: ReadonlyArray<string> | undefined
): { readonly input: FeedbackInput } | { readonly none: string } => {
  if (verdict === null || verdict === undefined) return { none: "the item has no verdict: no feedback" }
  const notes = note !== undefined && note.trim() !== "" ? note : undefined
  const removing = (fallback: string) => {
    const remove = ticked !== undefined && ticked.length > 0 ? ticked : verdict.classifications
    return {
      input: {
        ...(remove.length > 0 ? { classificationsToRemove: [...remove] } : {}),
        ...(notes !== undefined || remove.length === 0 ? { notes: notes ?? fallback } : {}),
        confidence: "HIGH" as const
      }
    }
  }
  if (review.kind === "appeal") {
    if (decision === "reject") return { none: "the appeal was denied: the verdict stands, no feedback" }
    return harmful(verdict)
      ? removing("An appeal was upheld by a moderator in Warden's review queue.")
      : { none: "the verdict was not harmful: no feedback" }
  }
  if (decision === "approve")
    return harmful(verdict)
      ? removing("Approved by a moderator in Warden's review queue.")
      : { none: "the decision agrees with the verdict: no feedback" }
  if (harmful(verdict)) return { none: "the decision agrees with the verdict: no feedback" }
  return {
    input: {
      ...(ticked !== undefined && ticked.length > 0 ? { classificationsToAdd: [...ticked] } : {}),
      ...(notes !== undefined || ticked === undefined || ticked.length === 0
        ? { notes: notes ?? "rejected by a moderator" }
        : {}),
      confidence: "HIGH" as const
    }
  }
}
