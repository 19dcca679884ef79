/** Item versions to record straight into the state store, for the tests of its queries. */
import type { ItemRecord } from "../../src/state/StateStore.ts"

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
