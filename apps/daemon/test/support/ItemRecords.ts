/** Item versions to record straight into the state store, and the records sinks deliver, for the tests of both. */
import type { VerdictRecord } from "../../src/domain/VerdictRecord.ts"
import type { ItemRecord } from "../../src/domain/ItemVersion.ts"
import type { Analysed } from "../../src/domain/Outcome.ts"

/** An analysed text item version (NEUTRAL, one request, no segments); `fields` override any part. */
export const itemRecord = (
  source: string,
  reference: string,
  version: number,
  fields: Partial<ItemRecord> = {}
): ItemRecord => ({
  source,
  reference,
  version,
  contentHash: `hash-${reference}`,
  contentType: "text",
  status: "analysed",
  mode: "v1",
  endpoint: "/analyze/v1/text",
  request: "{}",
  response: "{}",
  verdict: { type: "NEUTRAL", classifications: [] },
  error: undefined,
  segments: [],
  event: JSON.stringify({ kind: "upsert", reference, content: { type: "text", text: "hi" } }),
  analysedAt: new Date().toISOString(),
  createdAt: 1000 + version,
  ...fields
})

/** What a sink delivers for version 1 of `reference` from source `s`: a HATEFUL, HIGH, REMOVE verdict. */
export const verdictRecord = (reference: string): VerdictRecord => ({
  source: "s",
  reference,
  version: 1,
  status: "analysed",
  contentType: "text",
  mode: "v1",
  verdict: { type: "HATEFUL", classifications: ["INSULT"], severity: "HIGH", recommendedAction: "REMOVE" },
  segments: 1,
  analysedAt: "2026-01-01T00:00:00.000Z",
  dryRun: false
})

/** An analysed outcome as the record step receives it: HATEFUL, HIGH, REMOVE (no segments). */
export const hateful: Analysed = {
  status: "analysed",
  endpoint: "/analyze/v1/text",
  request: "{}",
  response: "{}",
  verdict: { type: "HATEFUL", severity: "HIGH", classifications: ["INSULT"], recommendedAction: "REMOVE" },
  segments: []
}
