/**
 * The decisions listing (admin API, review console) stays an index seek at any depth and with any
 * filter: SQLite's EXPLAIN QUERY PLAN of the very statement `DecisionStore.decisions` runs names one of
 * the listing indexes of migration 0005 and never sorts (no "USE TEMP B-TREE FOR ORDER BY") nor scans.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { SqlClient } from "effect/sql"
import { sqlLayer } from "../src/Daemon.ts"
import { type DecisionQuery, DecisionStore } from "../src/state/DecisionStore.ts"
import * as StateStore from "../src/state/StateStore.ts"

const cursor = { createdAt: 1_700_000_000_000, source: "demo", reference: "rss:x/1", version: 1 }

const plans = (queries: ReadonlyArray<DecisionQuery>) =>
  Effect.gen(function* () {
    const store = yield* DecisionStore
    const sql = yield* SqlClient.SqlClient
    const out: Array<string> = []
    for (const query of queries) {
      const [text, params] = store.decisionsStatement(query).compile()
      const rows = yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)
      out.push(rows.map((r) => r.detail).join(" | "))
    }
    return out
  }).pipe(
    Effect.provide(
      StateStore.layer.pipe(
        Layer.provideMerge(
          sqlLayer({ _tag: "sqlite", filename: join(mkdtempSync(join(tmpdir(), "warden-ix-")), "s.db") })
        )
      )
    ),
    Effect.scoped,
    Effect.runPromise
  )

describe("decision listing indexes", () => {
  it("every filter of the listing, first page and after a cursor, seeks an index in listing order", async () => {
    const cases: ReadonlyArray<readonly [DecisionQuery, string]> = [
      [{ limit: 100 }, "warden_items_listing"],
      [{ limit: 100, after: cursor }, "warden_items_listing"],
      [{ limit: 100, source: "demo", after: cursor }, "warden_items_listing_source"],
      [{ limit: 100, type: "THREAT" }, "warden_items_listing_type"],
      [{ limit: 100, type: "THREAT", after: cursor }, "warden_items_listing_type"],
      [{ limit: 100, severity: "HIGH", after: cursor }, "warden_items_listing_severity"],
      // Filters without an index of their own ride the listing order (no sort, no full scan).
      [{ limit: 100, actionStatus: "failed", after: cursor }, "warden_items_listing"],
      [{ limit: 100, text: "idiot", after: cursor }, "warden_items_listing"]
    ]
    const got = await plans(cases.map(([q]) => q))
    cases.forEach(([query, index], i) => {
      const plan = got[i]!
      expect(plan, JSON.stringify(query)).toMatch(new RegExp(`USING INDEX ${index}\\b(?!_)`, "u"))
      expect(plan, JSON.stringify(query)).not.toContain("TEMP B-TREE")
      expect(plan, JSON.stringify(query)).not.toMatch(/SCAN i(?! USING)/u)
      // A cursor is a seek into the index, not a walk from its start.
      if (query.after !== undefined && query.source === undefined) expect(plan).toMatch(/created_at<\?/u)
    })
  }, 30_000)
})
