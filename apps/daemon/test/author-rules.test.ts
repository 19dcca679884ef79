/**
 * The record transaction decides with the author's context (issue 37), on SQLite and PostgreSQL alike:
 * `when.author` counts the author's items across the sources of one platform and within the batch
 * (two items of one author in one round count each other), strikes are written with their items and
 * decay on the Clock, a `review: true` rule writes the review row (and holds on a platform that can),
 * a newer version supersedes a pending review, and a source without author rules reads no history.
 */
import { it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { describe, expect } from "vitest"
import type { Analysed } from "../src/domain/Outcome.ts"
import type { Rule } from "../src/domain/Rule.ts"
import type { SourceSettings } from "../src/domain/SourceSettings.ts"
import * as AuthorHistory from "../src/engine/AuthorHistory.ts"
import type { Work } from "../src/engine/Dedupe.ts"
import * as Recording from "../src/engine/Record.ts"
import { SourceStatus } from "../src/engine/SourceStatus.ts"
import * as AuthorBackfill from "../src/state/AuthorBackfill.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import { StrikeStore } from "../src/state/StrikeStore.ts"
import { hateful, itemRecord } from "./support/ItemRecords.ts"
import { onFreshState, stateBackends } from "./support/StateBackends.ts"
import { sourceSettings } from "./support/TestPlatform.ts"

const HOUR = 3_600_000

const neutral: Analysed = { ...hateful, verdict: { type: "NEUTRAL", severity: "NONE", classifications: [] } }

const work = (reference: string, author: string | undefined, version = 1): Work => ({
  event: {
    kind: "upsert",
    reference,
    content: { type: "text", text: `text of ${reference}` },
    ...(author === undefined ? {} : { author: { identifier: author, username: `${author}-name` } })
  },
  version,
  contentHash: `hash-${reference}-${version}`
})

const repeatHate: Rule = {
  name: "repeat-hate",
  when: { type: ["HATEFUL"], author: { within: Duration.hours(1), count: 3, type: ["HATEFUL"] } },
  actions: [],
  review: true
}
const escalating: Rule = { name: "escalating", when: { author: { strikesAtLeast: 2.5 } }, actions: [], review: true }
const strikes = {
  halfLifeMillis: 7 * 24 * HOUR,
  verdicts: [{ when: { type: ["HATEFUL"], severityAtLeast: "HIGH" }, weight: 1 }],
  rejection: 1
}
const feed = (id: string, rules: ReadonlyArray<Rule>, settings: Partial<SourceSettings> = {}) =>
  sourceSettings(id, "rss", { platform: "rss", rules, strikes, connectorActions: [], ...settings })

/** Records a round of `source` and answers each entry's rule (the engine's own record step). */
const record = (settings: SourceSettings, done: ReadonlyArray<readonly [Work, Analysed]>) =>
  Effect.gen(function* () {
    const deps = {
      items: yield* ItemStore,
      sourceStatus: yield* SourceStatus,
      options: { sinks: [] }
    }
    yield* Recording.recordAll(deps, settings, done)
  }).pipe(Effect.provide(SourceStatus.layer))

const reviews = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ source: string; reference: string; version: number | string; rule: string; state: string }>`
    SELECT source, reference, version, rule, state, author_key FROM warden_review ORDER BY source, reference, version`
  return rows.map((r) => `${r.source}/${r.reference} v${Number(r.version)} ${r.rule} ${r.state}`)
})

const actions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ reference: string; kind: string; rule: string }>`
    SELECT reference, kind, rule FROM warden_actions ORDER BY reference, seq`
  return rows.map((r) => `${r.reference} ${r.kind} (${r.rule})`)
})

for (const [name, location] of stateBackends()) {
  describe(`author rules in the record transaction on ${name}`, () => {
    it.effect(
      "three hateful items of one author within an hour across two feeds: the third goes to review; in one batch they count each other",
      () =>
        onFreshState(
          location,
          Effect.gen(function* () {
            yield* TestClock.setTime(100 * HOUR)
            const a = feed("feed-a", [repeatHate])
            const b = feed("feed-b", [repeatHate])
            yield* record(a, [[work("a/1", "ada"), hateful]])
            yield* TestClock.adjust("10 minutes")
            // another author, and a neutral item of ada: neither counts
            yield* record(a, [
              [work("a/2", "bob"), hateful],
              [work("a/3", "ada"), neutral]
            ])
            yield* record(b, [[work("b/1", "ada"), hateful]])
            expect(yield* reviews).toEqual([])
            yield* TestClock.adjust("10 minutes")
            yield* record(b, [[work("b/2", "ada"), hateful]])
            expect(yield* reviews).toEqual(["feed-b/b/2 v1 repeat-hate pending"])
            // Two more items of bob in one batch: the third of the round's own counts
            yield* record(a, [
              [work("a/4", "bob"), hateful],
              [work("a/5", "bob"), hateful]
            ])
            expect(yield* reviews).toEqual(["feed-a/a/5 v1 repeat-hate pending", "feed-b/b/2 v1 repeat-hate pending"])
            // An hour later ada's first items are out of the window: one more is not the third
            yield* TestClock.adjust("61 minutes")
            yield* record(a, [[work("a/6", "ada"), hateful]])
            expect((yield* reviews).some((r) => r.includes("a/6"))).toBe(false)
            // A redelivered round changes nothing (the version is recorded already)
            yield* record(b, [[work("b/2", "ada"), hateful]])
            expect(yield* reviews).toHaveLength(2)
          })
        ),
      60_000
    )

    it.effect(
      "strikes are written with their items, counted with this item's own, and decay on the clock",
      () =>
        onFreshState(
          location,
          Effect.gen(function* () {
            yield* TestClock.setTime(1000 * HOUR)
            const a = feed("feed-a", [escalating])
            yield* record(a, [
              [work("s/1", "cy"), hateful],
              [work("s/2", "cy"), hateful]
            ])
            const store = yield* StrikeStore
            expect((yield* store.ofAuthor("rss:cy")).map((s) => [s.reference, s.kind, s.weight])).toEqual([
              ["s/1", "verdict", 1],
              ["s/2", "verdict", 1]
            ])
            expect(yield* reviews).toEqual([])
            // The third strike is this item's own: 3 >= 2.5
            yield* record(a, [[work("s/3", "cy"), hateful]])
            expect(yield* reviews).toEqual(["feed-a/s/3 v1 escalating pending"])
            // A week later the three weigh 1.5: a neutral item of cy earns none and is not escalated
            yield* TestClock.adjust(Duration.days(7))
            yield* record(a, [[work("s/4", "cy"), neutral]])
            expect(yield* reviews).toEqual(["feed-a/s/3 v1 escalating pending"])
            // An item without an author never matches an author condition
            yield* record(feed("feed-a", [{ ...escalating, when: { author: { strikesAtLeast: 0.001 } } }]), [
              [work("s/5", undefined), hateful]
            ])
            expect((yield* reviews).some((r) => r.includes("s/5"))).toBe(false)
          })
        ),
      60_000
    )

    it.effect(
      "review: true writes the review row; on a connector that can hold, it holds too; a new version supersedes a pending review",
      () =>
        onFreshState(
          location,
          Effect.gen(function* () {
            const hold: Rule = { name: "hold-hateful", when: { type: ["HATEFUL"] }, actions: [], review: true }
            const youtube = sourceSettings("yt", "youtube", {
              platform: "youtube",
              rules: [hold],
              connectorActions: ["holdForReview", "reject", "publish", "restore"]
            })
            const rss = feed("forum", [hold])
            yield* record(youtube, [[work("y/1", "UC1"), hateful]])
            yield* record(rss, [[work("r/1", "ada"), hateful]])
            expect(yield* reviews).toEqual(["forum/r/1 v1 hold-hateful pending", "yt/y/1 v1 hold-hateful pending"])
            expect(yield* actions).toEqual(["y/1 holdForReview (hold-hateful)"])
            // the item is edited: the pending review of version 1 is closed, version 2 is in the queue
            yield* record(rss, [[work("r/1", "ada", 2), hateful]])
            expect(yield* reviews).toEqual([
              "forum/r/1 v1 hold-hateful superseded",
              "forum/r/1 v2 hold-hateful pending",
              "yt/y/1 v1 hold-hateful pending"
            ])
          })
        ),
      60_000
    )

    it.effect("items recorded before author keys get theirs at start, from the source's platform", () =>
      onFreshState(
        location,
        Effect.gen(function* () {
          const items = yield* ItemStore
          // as a daemon before 0011 recorded them: the identifier only
          yield* items.recordItems([
            { item: itemRecord("forum", "old/1", 1, { author: "u-1" }), sinks: [], payload: "{}" },
            { item: itemRecord("chat", "old/2", 1, { author: "u-1" }), sinks: [], payload: "{}" },
            { item: itemRecord("chat", "old/3", 1), sinks: [], payload: "{}" }
          ])
          yield* AuthorBackfill.run(
            new Map([
              ["forum", "rss"],
              ["chat", "discord"]
            ])
          )
          const sql = yield* SqlClient.SqlClient
          const keys = yield* sql<{ reference: string; author_key: string | null }>`
            SELECT reference, author_key FROM warden_items ORDER BY reference`
          expect(keys.map((k) => [k.reference, k.author_key])).toEqual([
            ["old/1", "rss:u-1"],
            ["old/2", "discord:u-1"],
            ["old/3", null]
          ])
        })
      )
    )
  })
}

describe("a source without author rules", () => {
  it("reads nothing of its authors (strikes are still written with the items)", () => {
    const plain = feed("x", [{ name: "hide", when: { type: ["HATEFUL"] }, actions: [] }])
    expect(AuthorHistory.readOf(plain, ["rss:ada"], 0)).toBeUndefined()
    expect(AuthorHistory.readOf(feed("x", [repeatHate]), ["rss:ada"], 10 * HOUR)).toEqual({
      keys: ["rss:ada"],
      itemsSince: 9 * HOUR,
      strikesSince: undefined
    })
  })
})
