/**
 * Erasure and retention in the state store (state/Erasure.ts), on SQLite and PostgreSQL: erase by
 * reference and by author reach every stored copy (items, segments, outbox, dead letters, source dead
 * letters, feedback, the `sql` sink's table) and keep what dedupe needs; on SQLite the erased text is
 * not in the files' bytes either. Retention erases old versions only and dedupe still knows them.
 */
import { existsSync, readFileSync } from "node:fs"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { sqlLayer } from "../src/Daemon.ts"
import * as QueuedRecord from "../src/sinks/QueuedRecord.ts"
import * as SqlSink from "../src/sinks/SqlSink.ts"
import { Erasure, hashOf } from "../src/state/Erasure.ts"
import type { ItemRecord } from "../src/domain/ItemVersion.ts"
import * as BatchEvent from "../src/engine/BatchEvent.ts"
import { DecisionStore } from "../src/state/DecisionStore.ts"
import { FeedbackStore } from "../src/state/FeedbackStore.ts"
import { ItemStore, type RecordEntry } from "../src/state/ItemStore.ts"
import { OutboxStore } from "../src/state/OutboxStore.ts"
import { SourceErrorStore } from "../src/state/SourceErrorStore.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { itemRecord, verdictRecord } from "./support/ItemRecords.ts"
import { stateBackends } from "./support/StateBackends.ts"

const SECRET_1 = "SECRET-ALPHA-7f3c9e the first erased text"
const SECRET_2 = "SECRET-BRAVO-1d44aa the second erased text"
const KEPT = "KEPT-CHARLIE-90bb12 a text that stays"

const entry = (
  source: string,
  reference: string,
  text: string,
  author: string,
  fields: Partial<ItemRecord> = {}
): RecordEntry => {
  const event = JSON.stringify({
    kind: "upsert",
    reference,
    content: { type: "text", text },
    author: { identifier: author, username: `${author}-name` }
  })
  const request = JSON.stringify({ channelId: "c", text, reference })
  return {
    item: itemRecord(source, reference, 1, {
      request,
      response: JSON.stringify({ textAnalysis: { type: "HATEFUL", text } }),
      verdict: { type: "HATEFUL", classifications: ["INSULT"], severity: "MEDIUM" },
      segments: [
        { request, response: "{}" },
        { request: JSON.stringify({ text: `${text} (second segment)` }), response: "{}" }
      ],
      event,
      createdAt: 1_000,
      ...fields
    }),
    sinks: ["audit", "dead"],
    payload: JSON.stringify({ source, reference, version: 1, status: "analysed", text, permalink: `https://p/${text}` })
  }
}

/** Every row of every table, as one string: where a text could still be. */
const everything = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql.onDialectOrElse({
    pg: () =>
      sql<{
        name: string
      }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`,
    orElse: () => sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
  })
  let all = ""
  for (const { name } of tables)
    all += JSON.stringify(yield* sql.unsafe(`SELECT * FROM ${name}`), (_, v) => (typeof v === "bigint" ? String(v) : v))
  return all
})

for (const [name, location] of stateBackends()) {
  describe(`erasure on ${name}`, () => {
    it("erase by reference, then by author: every copy goes, the audit keeps counts, dedupe still knows the items", async () => {
      const state = await location()
      const layer = Layer.mergeAll(
        Erasure.layer,
        SqlSink.make({ name: "sql" }).pipe(Effect.asVoid, Layer.effectDiscard)
      ).pipe(Layer.provideMerge(StateStore.layer), Layer.provideMerge(sqlLayer(state)))
      await Effect.runPromise(
        Effect.gen(function* () {
          const items = yield* ItemStore
          const outbox = yield* OutboxStore
          const feedback = yield* FeedbackStore
          const sourceErrors = yield* SourceErrorStore
          const decisions = yield* DecisionStore
          const erasure = yield* Erasure
          const sink = yield* SqlSink.make({ name: "sql" })
          yield* items.recordItems([
            entry("s", "e/1", SECRET_1, "u-42"),
            entry("s", "e/2", SECRET_2, "u-42"),
            entry("s", "k/1", KEPT, "u-7")
          ])
          // one row of each kind where a copy of the content can be
          for (const [reference, text] of [
            ["e/1", SECRET_1],
            ["e/2", SECRET_2],
            ["k/1", KEPT]
          ] as const) {
            const [row] = yield* outbox
              .pendingOutbox("dead", 10)
              .pipe(Effect.map((rows) => rows.filter((r) => r.reference === reference)))
            yield* outbox.deadLetter(row!, "gave up")
            expect(yield* sink.deliver([QueuedRecord.fromRecord({ ...verdictRecord(reference), text })])).toEqual([
              undefined
            ])
            yield* feedback.recordFeedback({
              source: "s",
              reference,
              version: 1,
              origin: "manual",
              feedbackId: "f",
              request: JSON.stringify({ analyzeRequest: { text } }),
              status: "sent",
              error: undefined
            })
            yield* sourceErrors.recordSourceDeadLetter({
              source: "s",
              reference,
              field: "content.text",
              reason: "too long",
              event: JSON.stringify({ text })
            })
          }
          // effect/cluster's tables, reduced to the columns erasure reads: a processed batch message
          // carrying e/1 (history: erased), one as this daemon writes them (the events as JSON text
          // inside the payload's JSON) carrying e/2, and one still to process carrying k/1 (work in
          // flight: kept)
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE cluster_messages (id BIGINT PRIMARY KEY, processed BOOLEAN NOT NULL, payload TEXT)`
          yield* sql`CREATE TABLE cluster_replies (id BIGINT PRIMARY KEY, request_id BIGINT NOT NULL)`
          yield* sql`INSERT INTO cluster_messages ${sql.insert([
            { id: 1, processed: true, payload: JSON.stringify({ events: [{ reference: "e/1", text: SECRET_1 }] }) },
            { id: 2, processed: false, payload: JSON.stringify({ events: [{ reference: "k/1", text: KEPT }] }) },
            {
              id: 3,
              processed: true,
              payload: JSON.stringify({
                source: "s",
                events: BatchEvent.toText([
                  { kind: "upsert", reference: "e/2", content: { type: "text", text: SECRET_2 } }
                ])
              })
            }
          ])}`
          yield* sql`INSERT INTO cluster_replies ${sql.insert({ id: 10, request_id: 1 })}`
          expect(yield* everything).toContain(SECRET_1)

          const first = yield* erasure.erase({ _tag: "Reference", reference: "e/1" }, { name: "cli:test", role: "cli" })
          expect(first.counts).toEqual({
            items: 1,
            segments: 2,
            outbox: 1,
            deadLetters: 1,
            sourceDeadLetters: 1,
            feedback: 1,
            sqlSink: 1,
            clusterMessages: 1,
            strikes: 0,
            reviews: 0,
            intake: 0
          })
          expect(first.references).toEqual([{ source: "s", reference: "e/1" }])
          let all = yield* everything
          expect(all).not.toContain("SECRET-ALPHA")
          expect(all).toContain("SECRET-BRAVO")

          const second = yield* erasure.erase(
            { _tag: "Author", author: "u-42" },
            { name: "admin-token", role: "admin" }
          )
          // e/1 was erased already: only e/2's copies are counted
          expect(second.counts).toEqual({
            items: 1,
            segments: 2,
            outbox: 1,
            deadLetters: 1,
            sourceDeadLetters: 1,
            feedback: 1,
            sqlSink: 1,
            clusterMessages: 1,
            strikes: 0,
            reviews: 0,
            intake: 0
          })
          all = yield* everything
          expect(all).not.toContain("SECRET-BRAVO")
          expect(all).not.toContain("u-42-name")
          expect(all).toContain(KEPT)
          const left = yield* sql<{ id: number }>`SELECT id FROM cluster_messages`
          expect(left.map((r) => Number(r.id))).toEqual([2])
          expect(yield* sql`SELECT id FROM cluster_replies`).toEqual([])

          // what dedupe needs stays: a redelivery of the same content is recognised (a map by
          // reference: its order is the database's row order, which no query here fixes)
          const latest = yield* items.latestVersions("s", ["e/1", "e/2", "k/1"])
          expect([...latest.entries()].map(([r, v]) => `${r}:${v.version}:${v.contentHash}`).sort()).toEqual([
            "e/1:1:hash-e/1",
            "e/2:1:hash-e/2",
            "k/1:1:hash-k/1"
          ])
          const [decision] = yield* decisions.decision("e/1")
          expect(decision).toMatchObject({ status: "analysed", request: null, verdict: { type: "HATEFUL" } })

          const audit = yield* erasure.auditLog(10)
          expect(audit.map((a) => [a.actor, a.selector, a.target, a.counts.items])).toEqual([
            ["admin-token", "author", hashOf("u-42"), 1],
            ["cli:test", "reference", "e/1", 1]
          ])
          expect(JSON.stringify(audit)).not.toContain("u-42-name")
        }).pipe(Effect.provide(layer))
      )
      if (state._tag === "sqlite") {
        // gone from the files too: secure_delete zeroed the freed cells, the WAL was checkpointed
        for (const file of [state.filename, `${state.filename}-wal`]) {
          if (!existsSync(file)) continue
          const bytes = readFileSync(file)
          expect(bytes.includes(Buffer.from("SECRET-ALPHA")), file).toBe(false)
          expect(bytes.includes(Buffer.from("SECRET-BRAVO")), file).toBe(false)
        }
        expect(readFileSync(state.filename).includes(Buffer.from("KEPT-CHARLIE"))).toBe(true)
      }
    })

    it("retention erases versions recorded before the cutoff, in pages, and keeps newer ones", async () => {
      const state = await location()
      await Effect.runPromise(
        Effect.gen(function* () {
          const items = yield* ItemStore
          const decisions = yield* DecisionStore
          const erasure = yield* Erasure
          yield* items.recordItems([
            entry("s", "old/1", SECRET_1, "a", { createdAt: 1_000 }),
            entry("s", "old/2", SECRET_2, "a", { createdAt: 2_000 }),
            entry("s", "new/1", KEPT, "a", { createdAt: 9_000 }),
            entry("other", "old/3", SECRET_1, "a", { createdAt: 1_000 })
          ])
          const page = yield* erasure.sweep({ source: "s", before: 5_000, retention: "30d", limit: 1 })
          expect(page).toMatchObject({ counts: { items: 1 }, more: true })
          const rest = yield* erasure.sweep({ source: "s", before: 5_000, retention: "30d", limit: 1 })
          expect(rest.counts.items).toBe(1)
          const none = yield* erasure.sweep({ source: "s", before: 5_000, retention: "30d", limit: 1 })
          expect(none).toMatchObject({ counts: { items: 0 }, more: false })
          const rows = yield* decisions.decisions({ limit: 10 })
          expect(
            rows.map((r) => `${r.source}:${r.reference}:${r.request === null ? "erased" : "kept"}`).sort()
          ).toEqual(["other:old/3:kept", "s:new/1:kept", "s:old/1:erased", "s:old/2:erased"])
          const audit = yield* erasure.auditLog(10)
          expect(audit.map((a) => `${a.actor}:${a.target}:${a.source}:${a.counts.items}`)).toEqual([
            "retention:30d:s:1",
            "retention:30d:s:1"
          ])
          // an erased item is never offered for re-analysis (its content is gone)
          expect(yield* items.requestReanalysis("unrecognised", "s")).toBe(0)
        }).pipe(
          Effect.provide(Erasure.layer.pipe(Layer.provideMerge(StateStore.layer), Layer.provideMerge(sqlLayer(state))))
        )
      )
    })
  })
}
