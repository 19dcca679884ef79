/**
 * A sink's declared stores are erased as the daemon's own tables are (issue 38): a plugin sink that
 * keeps content in the state database declares its table and the columns holding a record, content
 * and the author; erasing the item version rewrites the record without them and nulls the columns.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Erasure } from "../src/state/Erasure.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import { SinkStores } from "../src/state/SinkStores.ts"
import * as SqliteClient from "../src/state/SqliteClient.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { itemRecord, verdictRecord } from "./support/ItemRecords.ts"

const ledger = { table: "ledger_rows", records: ["record"], content: ["body"], author: ["author_name"] }

const state = (stores: ReadonlyArray<typeof ledger>) =>
  Erasure.layer.pipe(
    Layer.provide(Layer.succeed(SinkStores, stores)),
    Layer.provideMerge(StateStore.layer),
    Layer.provideMerge(
      SqliteClient.layer({ filename: join(mkdtempSync(join(tmpdir(), "warden-sink-stores-")), "s.db") })
    ),
    Layer.orDie
  )

const setup = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const items = yield* ItemStore
  const record = { ...verdictRecord("r/1"), text: "you are awful", author: { username: "ann" } }
  yield* items.recordItems([{ item: itemRecord("s", "r/1", 1, { verdict: record.verdict }), sinks: [], payload: "{}" }])
  yield* sql`CREATE TABLE ledger_rows (source TEXT, reference TEXT, version INTEGER, record TEXT, body TEXT, author_name TEXT)`
  yield* sql`INSERT INTO ledger_rows ${sql.insert({ source: "s", reference: "r/1", version: 1, record: JSON.stringify(record), body: "you are awful", author_name: "ann" })}`
  return sql
})

describe("a sink's declared store", () => {
  it.effect("is erased with the item: its record without content and author, its content and author columns NULL", () =>
    Effect.gen(function* () {
      const sql = yield* setup
      const erased = yield* (yield* Erasure).erase({ _tag: "Reference", reference: "r/1" }, { name: "t", role: "cli" })
      assert.strictEqual(erased.counts.sqlSink, 1)
      const [row] = yield* sql<{ record: string; body: string | null; author_name: string | null }>`
        SELECT record, body, author_name FROM ledger_rows`
      assert.strictEqual(row?.body, null)
      assert.strictEqual(row?.author_name, null)
      const record = JSON.parse(row!.record)
      assert.strictEqual(record.text, undefined)
      assert.strictEqual(record.author, undefined)
      assert.strictEqual(record.verdict.type, "HATEFUL")
    }).pipe(Effect.provide(state([ledger])))
  )

  it.effect("is left alone when the daemon does not know it (not declared)", () =>
    Effect.gen(function* () {
      const sql = yield* setup
      yield* (yield* Erasure).erase({ _tag: "Reference", reference: "r/1" }, { name: "t", role: "cli" })
      const [row] = yield* sql<{ body: string | null }>`SELECT body FROM ledger_rows`
      assert.strictEqual(row?.body, "you are awful")
    }).pipe(Effect.provide(state([])))
  )
})
