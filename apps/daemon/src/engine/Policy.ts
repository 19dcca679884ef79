/**
 * What a recorded outcome leads to: the source's first matching rule (domain/Rule.ts) decides the
 * platform actions, the sinks and whether the item goes to the review queue; an item without a verdict
 * is left to the source's failure mode. A pure function of the settings, the outcome and the author's
 * context (built by the record transaction: AuthorHistory).
 */
import type { ActionRecord } from "../domain/Action.ts"
import type { Outcome } from "../domain/Outcome.ts"
import * as Rule from "../domain/Rule.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"

/** The actions and sinks of one outcome. */
export interface Decision {
  /** The rule that matched (`failureMode` for the failure mode's action). */
  readonly rule: string | undefined
  readonly actions: Array<ActionRecord>
  readonly sinks: ReadonlyArray<string>
  /** The rule sends the item to Warden's review queue (`review: true`). */
  readonly review: boolean
}

/** Actions that already take an item out of view: a `review: true` rule with one of them adds no hold. */
const OUT_OF_VIEW = ["holdForReview", "hide", "reject", "delete"]

/**
 * The actions, sinks and review a recorded outcome leads to; `author` is the item's author as of the
 * record transaction (undefined: no author, or no rule of the source reads one).
 */
export const decide = (
  settings: SourceSettings,
  outcome: Outcome,
  allSinks: ReadonlyArray<string>,
  author?: Rule.AuthorContext
): Decision => {
  const status = settings.dryRun ? "would-do" : "pending"
  if (outcome.status === "analysed") {
    const rule = Rule.firstMatch(settings.rules ?? [], outcome.verdict, author)
    if (rule === undefined) return { rule: undefined, actions: [], sinks: allSinks, review: false }
    const reason = Rule.reasonOf(rule.name, outcome.verdict)
    const verdict = {
      type: outcome.verdict.type ?? null,
      severity: outcome.verdict.severity ?? null,
      recommendedAction: outcome.verdict.recommendedAction ?? null,
      classifications: [...outcome.verdict.classifications]
    }
    const review = rule.review === true
    // "The same rule does both": held on the platform too, where the connector can and nothing else hides it.
    const hold =
      review &&
      (settings.connectorActions ?? []).includes("holdForReview") &&
      !rule.actions.some((a) => OUT_OF_VIEW.includes(a.kind))
    const actions = hold ? [...rule.actions, { kind: "holdForReview" }] : rule.actions
    return {
      rule: rule.name,
      actions: actions.map((a, seq) => ({
        seq,
        rule: rule.name,
        kind: a.kind,
        params: { ...("params" in a ? a.params : {}), verdict },
        reason: ("reason" in a ? a.reason : undefined) ?? reason,
        status
      })),
      sinks: rule.sinks ?? allSinks,
      review
    }
  }
  // No verdict (the API unreachable past the delay, or an answer without a verdict): the failure mode decides.
  const rejected =
    (outcome.status === "unanalysed" && outcome.mode === "reject") ||
    (outcome.status === "unrecognised" && settings.failure?.mode === "reject")
  if (rejected && settings.failure?.action !== undefined) {
    return {
      rule: "failureMode",
      actions: [
        {
          seq: 0,
          rule: "failureMode",
          kind: settings.failure.action,
          params: {},
          reason:
            outcome.status === "unrecognised"
              ? "warden: the analysis API answered without a verdict (failure mode reject)"
              : "warden: the analysis API could not be reached (failure mode reject)",
          status
        }
      ],
      sinks: allSinks,
      review: false
    }
  }
  return { rule: undefined, actions: [], sinks: allSinks, review: false }
}
