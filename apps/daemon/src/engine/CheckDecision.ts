/**
 * The answer of a push source's `POST /v1/check` (issue 39): may the item be published? A pure function
 * of the source's settings and the item's record (or of nothing, when the deadline passed first).
 *
 * From a verdict, through the rule that matched it (the record's `rule`):
 * - a rule with an action that takes the item out of view (`hide`, `reject`, `delete`) -> `reject`;
 * - else a rule that sends it to review (`review: true`, or a `holdForReview` action) -> `review`;
 * - else (no rule matched, or a rule that only logs, reacts or notifies) -> `allow`.
 * Without a verdict (the API could not be reached past the failure mode's delay, refused the item, or
 * answered without a verdict), or with none before the deadline: the source's failure mode, `allow` ->
 * `allow`, `reject` -> `reject`, `hold` -> `review` (hold the item until its verdict is known).
 */
import type { PushHost } from "@warden/connector"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import type { LatestRecord } from "../state/LatestRecord.ts"

/** Actions that take an item out of view (as Policy's OUT_OF_VIEW): the check answers `reject`. */
const REJECTING = new Set(["hide", "reject", "delete"])

/** The failure mode's answer for `reference`, with the recorded version when there is one. */
export const byFailureMode = (
  settings: SourceSettings,
  reference: string,
  record?: LatestRecord
): PushHost.CheckResult => {
  const mode = settings.failure?.mode ?? "hold"
  const action = settings.failure?.action
  return {
    decision: mode === "allow" ? "allow" : mode === "reject" ? "reject" : "review",
    reference,
    version: record?.version ?? null,
    verdict: null,
    rule: record === undefined ? null : (record.rule ?? null),
    actions: mode === "reject" && action !== undefined ? [action] : [],
    decidedBy: "failureMode"
  }
}

/** The answer from an item's record (see the module documentation). */
export const fromRecord = (settings: SourceSettings, reference: string, record: LatestRecord): PushHost.CheckResult => {
  if (record.status !== "analysed" || record.verdict === null) return byFailureMode(settings, reference, record)
  const name = record.rule ?? null
  const rule = name === null ? undefined : settings.rules?.find((r) => r.name === name)
  const actions = (rule?.actions ?? []).map((a) => a.kind)
  const decision = actions.some((kind) => REJECTING.has(kind))
    ? "reject"
    : rule?.review === true || actions.includes("holdForReview")
      ? "review"
      : "allow"
  return {
    decision,
    reference,
    version: record.version,
    verdict: record.verdict,
    rule: name,
    actions,
    decidedBy: "verdict"
  }
}
