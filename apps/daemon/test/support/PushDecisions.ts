/** What the push tests share: their source's settings, and what it answers a check of an insult. */
import type { SourceSettings } from "../../src/domain/SourceSettings.ts"

/** A push source `id` whose `insults` rule hides an INSULT, with failure mode `failure`. */
export const pushSettings = (id: string, connector: string, failure: "allow" | "reject" | "hold"): SourceSettings => ({
  id,
  connector,
  channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
  mode: "v1",
  analyse: new Set(["text"]),
  oversize: "split",
  dryRun: false,
  rules: [{ name: "insults", when: { classifications: { anyOf: ["INSULT"] } }, actions: [{ kind: "hide" }] }],
  failure: { mode: failure, afterMillis: 60_000 },
  connectorActions: ["hide"]
})

/** What the push tests' source answers a check of an insult: its `insults` rule hides it, so `reject`. */
export const insultRejected = (reference: string) => ({
  decision: "reject",
  reference,
  version: 1,
  rule: "insults",
  actions: ["hide"],
  decidedBy: "verdict"
})
