/**
 * What Warden's platform actions left of an item version on its platform: the removal in force (the
 * last `hide`, `holdForReview`, `reject` or `delete` that ran, unless a `restore` ran after it), and
 * which removal a connector's declared kinds allow. Read by the console's Restore / Remove
 * (ModeratorAction) and by review decisions (ReviewService).
 */
import type { ActionRow } from "./Action.ts"

/** The actions `restore` reverses. */
export const REVERSIBLE = ["hide", "holdForReview", "reject"]
/** What "Remove" does, in order of preference: the first the connector declares. */
export const REMOVALS = [...REVERSIBLE, "delete"]

/** The action kind "Remove" uses for a connector declaring `declared`, if any. */
export const removalKind = (declared: ReadonlyArray<string>): string | undefined =>
  REMOVALS.find((kind) => declared.includes(kind))

/** Warden's action that keeps the item version out of view on the platform (its kind), if any. */
export const removalInForce = (actions: ReadonlyArray<ActionRow>, version: number): string | undefined => {
  const last = actions
    .filter((a) => a.version === version && a.status === "done" && (REMOVALS.includes(a.kind) || a.kind === "restore"))
    .sort((a, b) => a.seq - b.seq)
    .at(-1)
  return last === undefined || last.kind === "restore" ? undefined : last.kind
}

/** Whether Warden's actions left the item out of view on the platform (`deleted`: for good). */
export const platformState = (
  actions: ReadonlyArray<ActionRow>,
  version: number
): "visible" | "removed" | "deleted" => {
  const kind = removalInForce(actions, version)
  return kind === undefined ? "visible" : kind === "delete" ? "deleted" : "removed"
}

/** The removal in force once the item version's queued actions have run (`pending` ones counted as done). */
export const removalAfterQueued = (actions: ReadonlyArray<ActionRow>, version: number): string | undefined =>
  removalInForce(
    actions.map((a) => (a.status === "pending" ? { ...a, status: "done" } : a)),
    version
  )

/** What a moderator's rejection takes, in order of preference: the first the connector declares (never a hold). */
export const REJECTIONS = ["reject", "hide", "delete"]

/** The platform action a review decision calls for, and what the moderator is told of the platform. */
export interface ReviewPlan {
  /** The action to queue (`undefined`: none). */
  readonly kind: string | undefined
  /** The platform's side, in words: "rejected on the platform", "not possible on this platform"... */
  readonly note: string
}

/**
 * The platform side of a review decision: `remove` (a rejection, a denied appeal leaves things as they
 * are and asks for none) takes the item out of view with the first of {@link REJECTIONS} the connector
 * declares, unless something stronger than a hold is in force (YouTube: a held comment is rejected);
 * `restore` (an approval, an upheld appeal) reverses a hold, hide or reject where the connector declares
 * `restore`. `declared` are the connector's action kinds; `actions` the item's stored actions.
 */
export const reviewPlan = (
  decision: "remove" | "restore",
  declared: ReadonlyArray<string>,
  actions: ReadonlyArray<ActionRow>,
  version: number
): ReviewPlan => {
  if (declared.length === 0) return { kind: undefined, note: "not possible on this platform (recorded in Warden only)" }
  const inForce = removalAfterQueued(actions, version)
  if (decision === "remove") {
    if (inForce !== undefined && inForce !== "holdForReview")
      return { kind: undefined, note: `already out of view on the platform (${inForce})` }
    const kind = REJECTIONS.find((k) => declared.includes(k))
    return kind === undefined
      ? { kind: undefined, note: "not possible on this platform (recorded in Warden only)" }
      : { kind, note: `${kind} queued on the platform` }
  }
  if (inForce === undefined) return { kind: undefined, note: "visible on the platform: nothing to restore" }
  if (inForce === "delete") return { kind: undefined, note: "deleted on the platform: it cannot be restored" }
  return declared.includes("restore")
    ? { kind: "restore", note: `restore queued on the platform (reversing ${inForce})` }
    : { kind: undefined, note: `not possible on this platform (the connector cannot restore its ${inForce})` }
}
