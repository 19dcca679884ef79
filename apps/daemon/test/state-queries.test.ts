/**
 * The state store's queries behind issue 21, on SQLite and PostgreSQL alike: which sources recorded a
 * reference, keyset paging of decisions, and asking for items to be analysed again.
 */
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import type { ItemRecord } from "../src/domain/ItemVersion.ts"
import { type DecisionPosition, DecisionStore } from "../src/state/DecisionStore.ts"
import { ItemStore, type RecordEntry } from "../src/state/ItemStore.ts"
import { itemRecord } from "./support/ItemRecords.ts"
import { onFreshState, stateBackends } from "./support/StateBackends.ts"

const entry = (source: string, reference: string, version: number, fields: Partial<ItemRecord> = {}): RecordEntry => ({
  item: itemRecord(source, reference, version, fields),
  sinks: [],
  payload: "{}"
})

for (const [name, location] of stateBackends()) {
  describe(`state queries on ${name}`, () => {
    it.live(
      "sources of a reference, paging with a cursor, and re-analysis requests",
      () =>
        onFreshState(
          location,
          Effect.gen(function* () {
            const store = yield* ItemStore
            const decisions = yield* DecisionStore
            yield* store.recordItems([
              entry("a", "shared", 1),
              entry("b", "shared", 1),
              // same created_at as the two above: the cursor must order ties by source, reference, version
              entry("a", "odd", 1, { status: "unrecognised", verdict: undefined, createdAt: 1001 }),
              // what a daemon before the unrecognised outcome stored for an answer without a verdict
              entry("a", "old", 1, { verdict: { classifications: [] }, createdAt: 999 })
            ])
            expect(yield* store.sourcesOf("shared")).toEqual(["a", "b"])
            expect(yield* store.sourcesOf("odd")).toEqual(["a"])

            const seen: Array<string> = []
            let after: DecisionPosition | undefined
            for (let page = 0; page < 10; page++) {
              const rows = yield* decisions.decisions({ limit: 1, after })
              if (rows.length === 0) break
              const last = rows[0]!
              seen.push(`${last.source}:${last.reference}`)
              after = {
                createdAt: last.createdAt,
                source: last.source,
                reference: last.reference,
                version: last.version
              }
            }
            expect(seen).toEqual(["a:odd", "a:shared", "b:shared", "a:old"])

            expect(yield* store.requestReanalysis("unrecognised", undefined)).toBe(1)
            expect(yield* store.requestReanalysis("unrecognised", "a", true)).toBe(2)
            const waiting = yield* store.unanalysed("a", ["text"], 10)
            expect(waiting.map((r) => r.reference).sort()).toEqual(["odd", "old"])
            const latest = yield* store.latestVersions("a", ["odd", "shared"])
            expect(latest.get("odd")?.reanalyse).toBe(true)
            expect(latest.get("shared")?.reanalyse).toBe(false)

            // A newer version answers the request.
            yield* store.recordItems([entry("a", "odd", 2)])
            expect((yield* store.unanalysed("a", ["text"], 10)).map((r) => r.reference)).toEqual(["old"])
          })
        ),
      30_000
    )

    it.live(
      "the text search sees through zero-width and bidirectional characters, on both sides",
      () =>
        onFreshState(
          location,
          Effect.gen(function* () {
            const store = yield* ItemStore
            const decisions = yield* DecisionStore
            const request = (text: string) => JSON.stringify({ channelId: "c", text })
            yield* store.recordItems([
              entry("a", "hidden", 1, { request: request("You are an id\u200biot, \u202eadmin") }),
              entry("a", "plain", 1, { request: request("You are an idiot") }),
              entry("a", "other", 1, { request: request("Lovely article") })
            ])
            const found = (text: string) =>
              Effect.map(decisions.decisions({ limit: 10, text }), (rows) => rows.map((r) => r.reference).sort())
            // Typed clean, it finds the content that hides the word; pasted with the hidden character, both.
            expect(yield* found("idiot")).toEqual(["hidden", "plain"])
            expect(yield* found("id\u200biot")).toEqual(["hidden", "plain"])
            expect(yield* found("IDIOT")).toEqual(["hidden", "plain"])
            expect(yield* found(", admin")).toEqual(["hidden"])
            expect(yield* found("nowhere")).toEqual([])
          })
        ),
      30_000
    )
  })
}
