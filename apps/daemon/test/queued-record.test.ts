/**
 * What sinks receive from the outbox: each verdict record as the JSON text recorded with its version.
 * Sinks that forward it write that text byte for byte; sinks that need its fields decode it, and a
 * text that is not a verdict record fails its own delivery with the field and the problem (the others
 * of its batch go through), where a cast let it through as a record with missing fields.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as JsonlSink from "../src/sinks/JsonlSink.ts"
import * as QueuedRecord from "../src/sinks/QueuedRecord.ts"
import * as SqlSink from "../src/sinks/SqlSink.ts"
import * as SqliteClient from "../src/state/SqliteClient.ts"
import { verdictRecord } from "./support/ItemRecords.ts"

const dir = () => mkdtempSync(join(tmpdir(), "warden-queued-"))

/** A record's text as an older daemon may have written it: other key order, non-ASCII, spacing. */
const recorded = `{"reference":"rss:f/é","source":"s","version":1,"status":"analysed","contentType":"text","mode":"v1","segments":1, "analysedAt":"2026-01-01T00:00:00.000Z","dryRun":false,"text":"ça va \u2014 \ud83d\ude00"}`
const good: QueuedRecord.QueuedRecord = { source: "s", reference: "rss:f/é", version: 1, json: recorded }
/** A text that is JSON but not a verdict record: its version is a string and its status unknown. */
const bad: QueuedRecord.QueuedRecord = {
  source: "s",
  reference: "r/2",
  version: 1,
  json: JSON.stringify({ ...verdictRecord("r/2"), version: "1", status: "maybe" })
}

describe("a queued verdict record", () => {
  it.effect("the jsonl sink writes each recorded text as it is, one line each", () =>
    Effect.gen(function* () {
      const path = join(dir(), "out.jsonl")
      const sink = yield* JsonlSink.make({ name: "file", path })
      const second = QueuedRecord.fromRecord(verdictRecord("r/3"))
      assert.deepStrictEqual(yield* sink.deliver([good, second]), [undefined, undefined])
      assert.strictEqual(readFileSync(path, "utf8"), `${recorded}\n${second.json}\n`)
    }).pipe(Effect.scoped)
  )

  it.effect("a sink that needs the fields decodes the text: one that is not a record fails alone, naming why", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const sink = yield* SqlSink.make({ name: "sql" })
      const [delivered, refused] = yield* sink.deliver([good, bad])
      assert.strictEqual(delivered, undefined)
      // Permanent: it will not decode later either (dead-lettered at once, not retried for a day).
      assert.strictEqual(refused?.retryable, false)
      assert.match(refused?.message ?? "", /^the stored verdict record does not decode: /u)
      assert.include(refused?.message ?? "", "version")
      assert.include(refused?.message ?? "", "status")
      const rows = yield* sql<{ reference: string; status: string; record: string }>`
        SELECT reference, status, record FROM warden_verdicts`
      assert.deepStrictEqual(
        rows.map((r) => ({ ...r })),
        [{ reference: "rss:f/é", status: "analysed", record: recorded }]
      )
      const decoded = QueuedRecord.decode(good)
      assert.strictEqual(decoded._tag === "Success" ? decoded.success.text : undefined, "ça va \u2014 \ud83d\ude00")
    }).pipe(Effect.provide(SqliteClient.layer({ filename: join(dir(), "s.db") }).pipe(Layer.orDie)), Effect.scoped)
  )
})
