/**
 * The state store's queries behind issue 21, on SQLite and PostgreSQL alike: which sources recorded a
 * reference, keyset paging of decisions, and asking for items to be analysed again.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, Redacted } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { sqlLayer } from "../src/Daemon.ts"
import { type ItemRecord, type RecordEntry, StateStore } from "../src/state/StateStore.ts"
import { freshDatabase } from "./support/Postgres.ts"

const entry = (source: string, reference: string, version: number, fields: Partial<ItemRecord> = {}): RecordEntry => ({
  item: {
    source,
    reference,
    version,
    contentHash: `h-${reference}`,
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
  },
  sinks: [],
  payload: "{}"
})

const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})

const backends = [
  [
    "sqlite",
    async () => ({ _tag: "sqlite" as const, filename: join(mkdtempSync(join(tmpdir(), "warden-q-")), "s.db") })
  ],
  [
    "postgres",
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      return { _tag: "postgres" as const, url: Redacted.make(db.url) }
    }
  ]
] as const

for (const [name, location] of backends) {
  describe(`state queries on ${name}`, () => {
    it("sources of a reference, paging with a cursor, and re-analysis requests", async () => {
      const state = await location()
      await Effect.runPromise(
        Effect.gen(function* () {
          const store = yield* StateStore
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
          let after: Parameters<typeof store.decisions>[0]["after"]
          for (let page = 0; page < 10; page++) {
            const rows = yield* store.decisions({ limit: 1, after })
            if (rows.length === 0) break
            const last = rows[0]!
            seen.push(`${last.source}:${last.reference}`)
            after = { createdAt: last.createdAt, source: last.source, reference: last.reference, version: last.version }
          }
          expect(seen).toEqual(["a:odd", "a:shared", "b:shared", "a:old"])

          expect(yield* store.requestReanalysis("unrecognised", undefined)).toBe(1)
          expect(yield* store.requestReanalysis("unrecognised", "a", true)).toBe(2)
          const waiting = yield* store.unanalysed("a", 10)
          expect(waiting.map((r) => r.reference).sort()).toEqual(["odd", "old"])
          const latest = yield* store.latestVersions("a", ["odd", "shared"])
          expect(latest.get("odd")?.reanalyse).toBe(true)
          expect(latest.get("shared")?.reanalyse).toBe(false)

          // A newer version answers the request.
          yield* store.recordItems([entry("a", "odd", 2)])
          expect((yield* store.unanalysed("a", 10)).map((r) => r.reference)).toEqual(["old"])
        }).pipe(Effect.provide(StateStore.layer.pipe(Layer.provide(sqlLayer(state)))), Effect.scoped)
      )
    }, 30_000)
  })
}
