/**
 * Issue 37's scenario, end to end through the admin API and the CLI, on SQLite and PostgreSQL: three
 * hateful comments of one author within an hour across two RSS feeds send the third to review by an
 * author rule; the author's history shows 3 strikes decaying (on the TestClock); an appeal of the first
 * is upheld (feedback sent, the strike gone, the platform side said: RSS cannot restore); and erasing
 * the author leaves no byte of their content or name in the state: the SQLite file and its WAL scanned
 * after `warden erase --author`, every row of every table on PostgreSQL after `DELETE /api/authors`.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { it } from "@effect/vitest"
import { Sandbox } from "@warden/sandbox"
import { Duration, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { describe, expect } from "vitest"
import { type StateLocation, sqlLayer } from "../src/Daemon.ts"
import type { Rule } from "../src/domain/Rule.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { rssSource } from "./support/FeedPipeline.ts"
import { type FeedItem, startFeedServer } from "./support/FeedServer.ts"
import { daemonOnTestClock } from "./support/InProcess.ts"
import { stateBackends } from "./support/StateBackends.ts"
import { CHANNEL } from "./support/TestPlatform.ts"
import { passUntil } from "./support/TestTime.ts"
import { warden } from "./support/WardenCli.ts"

const ALICE = "alice-token-0123456789"
const ADA = "ada@example.org (Ada Lovelace)"
const KEY = "rss:mailto:ada@example.org"
/** What must be gone after the erasure: the author's words, name and address. */
const MARKERS = ["zebra", "Ada Lovelace", "ada@example.org"]

const repeatHate: Rule = {
  name: "repeat-hate",
  when: { type: ["HATEFUL"], author: { within: Duration.hours(1), count: 3, type: ["HATEFUL"] } },
  actions: [],
  review: true
}
const strikes = { halfLifeMillis: 3_600_000, verdicts: [{ when: { type: ["HATEFUL"] }, weight: 1 }], rejection: 1 }

const item = (guid: string, description: string, author: string): FeedItem => ({
  guid,
  title: `Comment ${guid}`,
  description,
  author
})

/** Every row of every table of the state, as text (PostgreSQL: what "no row holds them" is checked on). */
const everyRow = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
  let text = ""
  for (const { name } of tables)
    text += JSON.stringify(yield* sql`SELECT * FROM ${sql(name)}`, (_, v) =>
      typeof v === "bigint" ? String(v) : v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v
    )
  return text
})

/** Batch messages effect/cluster has not marked processed yet. */
const inFlight = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM cluster_messages WHERE processed = FALSE`
  return Number(rows[0]?.n ?? 0)
})

const scenario = (location: () => Promise<StateLocation>) =>
  Effect.gen(function* () {
    const state = yield* Effect.promise(location)
    const sandbox = yield* Sandbox.start()
    const feedA = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startFeedServer([
          item("a1", "You are an idiot, zebra-one", ADA),
          item("o1", "Lovely article, thank you", "bob@example.org (Bob)"),
          item("a2", "You are a pathetic idiot, zebra-two", ADA)
        ])
      ),
      (f) => Effect.promise(f.close)
    )
    const feedB = yield* Effect.acquireRelease(
      Effect.promise(() => startFeedServer([])),
      (f) => Effect.promise(f.close)
    )
    const settings = { platform: "rss", rules: [repeatHate], strikes, connectorActions: [] }
    const source = (id: string, url: string) =>
      rssSource({ feeds: [{ url, id }], pollInterval: "200 millis" }, { ...settings, id: `feed-${id}` })
    const daemon = yield* daemonOnTestClock(
      {
        api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
        sources: [source("a", feedA.url), source("b", feedB.url)],
        sinks: Layer.succeed(SinkList, []),
        sinkNames: [],
        authors: { strikes, appealWindowMillis: 30 * 86_400_000 }
      },
      state,
      { moderators: [{ name: "alice", role: "moderator", token: Redacted.make(ALICE) }] }
    )
    const decisions = (query = "") =>
      Effect.map(daemon.call(`/api/decisions${query}`), (r) => (r.body.decisions ?? []) as Array<any>)
    const history = Effect.map(daemon.call(`/api/authors/${encodeURIComponent(KEY)}`), (r) => r.body)

    // Two of Ada's hateful comments (and Bob's) in feed a: 1 and 2 of the hour, nothing to review.
    yield* passUntil(
      Effect.map(decisions(), (d) => d.length === 3),
      "feed a's three verdicts"
    )
    expect((yield* daemon.call("/api/review")).body.pending.total).toBe(0)
    // Ten minutes later, her third, in feed b: the author rule sends it to review.
    yield* TestClock.adjust("10 minutes")
    feedB.setItems([item("b1", "Idiot. zebra-three", ADA)])
    yield* passUntil(
      Effect.map(decisions(), (d) => d.length === 4),
      "feed b's verdict"
    )
    const queue = (yield* daemon.call("/api/review")).body
    expect(queue.pending).toEqual({ total: 1, bySource: { "feed-b": 1 } })
    expect(queue.items[0]).toMatchObject({
      source: "feed-b",
      rule: "repeat-hate",
      author: { key: KEY, username: "Ada Lovelace" },
      platform: { note: "not possible on this platform: decisions are recorded in Warden only" }
    })
    const hers = yield* decisions(`?author=${encodeURIComponent(KEY)}`)
    expect(hers.map((d) => d.source).sort()).toEqual(["feed-a", "feed-a", "feed-b"])
    expect(hers.find((d) => d.source === "feed-b").rule).toBe("repeat-hate")

    // Her history: one author across both feeds, 3 strikes, decaying (half-life one hour).
    const now = yield* history
    expect(now.author).toMatchObject({ key: KEY, platform: "rss", identifier: "mailto:ada@example.org" })
    expect(now.author.usernames).toEqual(["Ada Lovelace"])
    expect(now.author.sources).toEqual(["feed-a", "feed-b"])
    expect(now.counts["24h"]).toMatchObject({ total: 3, byType: { HATEFUL: 3 } })
    expect(now.strikes.count).toBe(3)
    // two of them ten minutes old, one just now; to ±0.05: the TestClock moves on while the test waits for
    // the pipeline (20 ms a look), so under load the strikes are a few seconds older than that (seen in CI:
    // 2.775 for 2.782). Undecayed would be 3, so decay is still what this checks.
    expect(now.strikes.score).toBeCloseTo(2 * 0.5 ** (10 / 60) + 1, 1)
    yield* TestClock.adjust("1 hour")
    const later = yield* history
    expect(later.strikes.count).toBe(3)
    expect(later.strikes.score).toBeCloseTo(2 * 0.5 ** (70 / 60) + 0.5, 1)
    expect(later.strikes.explanation).toMatch(/^3 strikes, 1\.4 after decay; the last on \d\d-\d\d$/)
    expect(later.strikes.series).toHaveLength(31)
    expect(later.strikes.series.at(-1).score).toBeCloseTo(later.strikes.score, 5)
    expect(later.items).toHaveLength(3)

    // An appeal of the first, filed by an integration, upheld by Alice.
    const first = hers.find((d) => d.request.text.includes("zebra-one"))
    const before = (yield* sandbox.feedback).length
    const appeal = yield* daemon.call("/api/appeals", {
      method: "POST",
      body: JSON.stringify({
        source: "feed-a",
        reference: first.reference,
        statement: "A joke between friends, zebra-statement"
      })
    })
    expect(appeal.status).toBe(200)
    expect(appeal.body.review).toMatchObject({ kind: "appeal", state: "pending" })
    const upheld = yield* daemon.call(
      `/api/decisions/${encodeURIComponent(first.reference)}/review?source=feed-a`,
      { method: "POST", body: JSON.stringify({ decision: "approve" }) },
      ALICE
    )
    expect(upheld.status).toBe(200)
    expect(upheld.body.review).toMatchObject({ kind: "appeal", state: "upheld", decidedBy: "alice" })
    expect(upheld.body.platformNote).toBe("not possible on this platform (recorded in Warden only)")
    expect(upheld.body.feedback).toMatchObject({ reference: first.reference, endpoint: "/feedback/v1/text" })
    const sent = (yield* sandbox.feedback).slice(before)
    expect(sent).toHaveLength(1)
    expect(JSON.parse(sent[0]!.rawBody)).toMatchObject({
      confidence: "HIGH",
      classificationsToRemove: expect.any(Array)
    })
    const after = yield* history
    expect(after.strikes.count).toBe(2)
    expect(after.strikes.list.find((s: { reference: string }) => s.reference === first.reference)).toMatchObject({
      removedBy: "alice",
      removedReason: "appeal upheld"
    })
    expect(
      (yield* daemon.call(`/api/audit?actor=alice`)).body.entries.map((e: { action: string }) => e.action)
    ).toEqual(expect.arrayContaining(["appeal.uphold", "feedback"]))
    return { state, daemon }
  })

describe("issue 37's scenario on sqlite", () => {
  const [, fresh] = stateBackends()[0]!
  it.effect(
    "three hateful comments across two feeds, strikes decaying, an appeal upheld, warden erase --author leaves no byte",
    () =>
      Effect.gen(function* () {
        const { state } = yield* Effect.scoped(scenario(fresh))
        // The daemon stopped (its scope closed): the CLI erases, as an operator would.
        const filename = (state as { filename: string }).filename
        const config = join(dirname(filename), "warden.yaml")
        writeFileSync(
          config,
          `state:\n  sqlite: ${filename}\nsources:\n` +
            ["a", "b"]
              .map(
                (id) =>
                  `  - id: feed-${id}\n    type: rss\n    channelId: ${CHANNEL}\n    config: { feeds: [http://127.0.0.1/${id}.xml] }\n`
              )
              .join("")
        )
        const files = () => {
          let bytes = readFileSync(filename).toString("latin1")
          try {
            bytes += readFileSync(`${filename}-wal`).toString("latin1")
          } catch {
            // no WAL
          }
          return bytes
        }
        for (const marker of MARKERS) expect(files()).toContain(marker)
        const erased = yield* Effect.promise(() => warden(["erase", "--config", config, "--author", KEY]))
        expect(erased.stderr).toBe("")
        expect(erased.code).toBe(0)
        expect(erased.stdout).toMatch(/erased 3 item versions .*strikes 3/s)
        const left = files()
        for (const marker of MARKERS) expect(left).not.toContain(marker)
        // Only hers: Bob's comment is still there.
        expect(left).toContain("Lovely article")
      }),
    120_000
  )
})

describe("issue 37's scenario on postgres", () => {
  const [, fresh] = stateBackends()[1]!
  it.effect(
    "three hateful comments across two feeds, strikes decaying, an appeal upheld, DELETE /api/authors leaves no row holding her",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { state, daemon } = yield* scenario(fresh)
          const rows = everyRow.pipe(Effect.provide(sqlLayer(state)), Effect.scoped)
          for (const marker of MARKERS) expect(yield* rows).toContain(marker)
          // A batch message still in flight keeps its events until it is processed (erasure leaves work in
          // flight alone, docs/operations.md): the record may commit a moment before its message is marked
          // processed. The scenario erases a quiet pipeline, as the operator does.
          yield* passUntil(
            inFlight.pipe(
              Effect.provide(sqlLayer(state)),
              Effect.scoped,
              Effect.map((n) => n === 0)
            ),
            "no batch message in flight"
          )
          const erased = yield* daemon.call(`/api/authors/${encodeURIComponent(KEY)}`, { method: "DELETE" })
          expect(erased.status).toBe(200)
          expect(erased.body.counts).toMatchObject({ items: 3, strikes: 3 })
          const left = yield* rows
          for (const marker of MARKERS) expect(left).not.toContain(marker)
          expect(left).toContain("Lovely article")
          expect((yield* daemon.call(`/api/authors/${encodeURIComponent(KEY)}`)).status).toBe(404)
        })
      ),
    240_000
  )
})
