/**
 * What a recorded outcome leads to: the source's first matching rule (domain/Rule.ts) decides the
 * platform actions and the sinks; an item without a verdict is left to the source's failure mode.
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
}

/** The actions and sinks a recorded outcome leads to. */
export const decide = (settings: SourceSettings, outcome: Outcome, allSinks: ReadonlyArray<string>): Decision => {
  const status = settings.dryRun ? "would-do" : "pending"
  if (outcome.status === "analysed") {
    const rule = Rule.firstMatch(settings.rules ?? [], outcome.verdict)
    if (rule === undefined) return { rule: undefined, actions: [], sinks: allSinks }
    const reason = Rule.reasonOf(rule.name, outcome.verdict)
    const verdict = {
      type: outcome.verdict.type ?? null,
      severity: outcome.verdict.severity ?? null,
      recommendedAction: outcome.verdict.recommendedAction ?? null,
      classifications: [...outcome.verdict.classifications]
    }
    return {
      rule: rule.name,
      actions: rule.actions.map((a, seq) => ({
        seq,
        rule: rule.name,
        kind: a.kind,
        params: { ...a.params, verdict },
        reason: a.reason ?? reason,
        status
      })),
      sinks: rule.sinks ?? allSinks
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
      sinks: allSinks
    }
  }
  return { rule: undefined, actions: [], sinks: allSinks }
}
