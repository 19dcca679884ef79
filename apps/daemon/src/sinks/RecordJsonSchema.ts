/**
 * The verdict record's JSON Schema (draft 2020-12), published as `schema/verdict-record.schema.json`
 * in the package for receivers (a webhook endpoint, a jsonl reader, a query on the sql sink's
 * `record` column) to validate what Warden sends. Generated from the Effect Schema the sinks decode
 * with (domain/VerdictRecord.ts); a test fails when the committed file says other than what this
 * generates (`pnpm --filter @warden/daemon schema:record` writes it, formatted by Biome).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { JsonSchema, Schema } from "effect"
import { VerdictRecord } from "../domain/VerdictRecord.ts"

/** The document. Fields may be added in later releases (optional ones): a receiver accepts unknown keys. */
export const make = (): Record<string, unknown> => {
  const doc = Schema.toJsonSchemaDocument(VerdictRecord)
  return {
    $schema: JsonSchema.META_SCHEMA_URI_DRAFT_2020_12,
    $id: "https://warden.dev/schemas/verdict-record.json",
    title: "Warden verdict record",
    description:
      "What every sink receives for an item version: source + reference + version identify it (deliveries are at least once: drop repeats by them); where the item is (permalink, post, author, platform ids); the verdict or the error; the content text only when the sink's entry says content: true. Times are ISO 8601 in UTC.",
    ...doc.schema,
    ...(Object.keys(doc.definitions).length > 0 ? { $defs: doc.definitions } : {})
  }
}

/** Where the file is committed and shipped. */
export const FILE = new URL("../../schema/verdict-record.schema.json", import.meta.url)

/** The file's text as written (`schema:record` formats it with Biome after). */
export const text = (): string => `${JSON.stringify(make(), null, 2)}\n`

if (import.meta.url === `file://${process.argv[1]}`) {
  const current = (() => {
    try {
      return JSON.stringify(JSON.parse(readFileSync(FILE, "utf8")))
    } catch {
      return ""
    }
  })()
  const same = current === JSON.stringify(make())
  if (!same) writeFileSync(FILE, text())
  console.log(same ? "schema/verdict-record.schema.json is up to date" : "schema/verdict-record.schema.json written")
}
