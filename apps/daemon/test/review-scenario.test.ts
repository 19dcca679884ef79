/**
 * Issue 36's "done when", at the admin API (the browser part is the console's): a queue of 200 items
 * from an RSS feed and a YouTube channel (the fake YouTube Data API the connector's tests use), worked
 * by two named moderators at once. Every decision is recorded with its moderator; rejected YouTube
 * comments are rejected on YouTube, approved ones published; feedback reaches the sandbox for every
 * decision that disagrees with the verdict, with the stored request byte for byte and `confidence:
 * HIGH`, and for no other; a second decision of an item is a 409 naming the first moderator and does
 * nothing twice; a viewer's token cannot decide.
 */
import { Sandbox } from "@warden/sandbox"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FakeYouTube from "../../../packages/connector-youtube/test/fixtures/FakeYouTube.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { rssSource } from "./support/FeedPipeline.ts"
import { type FeedItem, startFeedServer } from "./support/FeedServer.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { query } from "./support/StateDb.ts"
import { ALICE, BOB, reviewAll, TEAM, VIC, youtubeSource } from "./support/ReviewTeam.ts"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const N = 100

/** Texts the sandbox rates harmful (HATEFUL, REMOVE) or not, alternately. */
const textOf = (i: number) => (i % 2 === 0 ? `You are an idiot, number ${i}` : `Thank you for the article, number ${i}`)

describe("issue 36's queue: 200 held items from RSS and YouTube, two moderators", () => {
  const scope = Effect.runSync(Scope.make())
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  let fake: FakeYouTube.Fake
  let daemon: Awaited<ReturnType<typeof startDaemonInProcess>>
  let stateFile: string

  beforeAll(async () => {
    sandbox = await Sandbox.startPromise()
    feed = await startFeedServer(
      Array.from({ length: N }, (_, i): FeedItem => ({ guid: `f${i}`, title: `Comment ${i}`, description: textOf(i) }))
    )
    fake = await Effect.runPromise(Effect.provideService(FakeYouTube.make(), Scope.Scope, scope))
    for (let i = 0; i < N; i++) fake.add({ text: textOf(i), author: `viewer${i}` })
    stateFile = join(mkdtempSync(join(tmpdir(), "warden-review-scenario-")), "state.db")
    daemon = await startDaemonInProcess(
      {
        state: { _tag: "sqlite", filename: stateFile },
        api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
        sources: [
          rssSource(
            { feeds: [{ url: feed.url, id: "forum" }], pollInterval: "200 millis", maxItemsPerPoll: 1000 },
            { id: "forum", platform: "rss", rules: [reviewAll], connectorActions: [] }
          ),
          youtubeSource(fake)
        ],
        sinks: Layer.succeed(SinkList, []),
        sinkNames: []
      },
      { moderators: TEAM }
    )
    await waitFor(
      async () => (await daemon.admin("/api/review")).body.pending?.total === 2 * N,
      90_000,
      "200 items in the review queue"
    )
    // every YouTube comment held on YouTube too (the same rule does both)
    await waitFor(
      async () => fake.state.comments.every((c) => c.status === "heldForReview"),
      60_000,
      "the YouTube comments held"
    )
  }, 180_000)

  afterAll(async () => {
    await daemon?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await feed?.close()
    await sandbox?.close()
  })

  const decide = (token: string, source: string, reference: string, body: unknown) =>
    daemon.as(token, `/api/decisions/${encodeURIComponent(reference)}/review?source=${source}`, {
      method: "POST",
      body: JSON.stringify(body)
    })

  it("every item decided by a named moderator reaches the platform and, on disagreement only, the API", async () => {
    const pending = await daemon.as(VIC, "/api/review?limit=500")
    expect(pending.body.pending).toEqual({ total: 200, bySource: { forum: 100, yt: 100 } })
    const items: Array<{ source: string; reference: string; verdict: { recommendedAction?: string } }> =
      pending.body.items
    // most severe first
    const harmfulFirst = items.findIndex((i) => i.verdict.recommendedAction !== "REMOVE")
    expect(items.slice(harmfulFirst).every((i) => i.verdict.recommendedAction !== "REMOVE")).toBe(true)

    // a viewer cannot decide
    const viewer = await decide(VIC, items[0]!.source, items[0]!.reference, { decision: "approve" })
    expect(viewer.status).toBe(403)

    // Alice takes the YouTube queue, Bob the forum's, ten at a time each; every other item approved.
    const feedbackBefore = (await Effect.runPromise(sandbox.feedback)).length
    const decided = new Map<string, { decision: "approve" | "reject"; by: string; harmful: boolean }>()
    const work = async (token: string, by: string, mine: typeof items) => {
      for (let i = 0; i < mine.length; i += 10) {
        await Promise.all(
          mine.slice(i, i + 10).map(async (item, j) => {
            const decision = (i + j) % 2 === 0 ? "approve" : "reject"
            const res = await decide(token, item.source, item.reference, { decision })
            expect(res.status).toBe(200)
            decided.set(`${item.source}/${item.reference}`, {
              decision,
              by,
              harmful: item.verdict.recommendedAction === "REMOVE"
            })
          })
        )
      }
    }
    await Promise.all([
      work(
        ALICE,
        "alice",
        items.filter((i) => i.source === "yt")
      ),
      work(
        BOB,
        "bob",
        items.filter((i) => i.source === "forum")
      )
    ])
    expect(decided.size).toBe(200)

    // recorded with each moderator's name
    const all = await daemon.admin("/api/review?state=decided&limit=500")
    expect(all.body.items).toHaveLength(200)
    for (const row of all.body.items) {
      const mine = decided.get(`${row.source}/${row.reference}`)!
      expect(row.decidedBy).toBe(mine.by)
      expect(row.state).toBe(mine.decision === "approve" ? "approved" : "rejected")
    }
    expect(all.body.pending.total).toBe(0)

    // YouTube: rejected comments rejected, approved ones published
    const byId = new Map(fake.state.comments.map((c) => [`youtube:${c.id}`, c]))
    await waitFor(
      async () =>
        [...decided].every(([key, d]) => {
          if (!key.startsWith("yt/")) return true
          const c = byId.get(key.slice(3))!
          return c.status === (d.decision === "approve" ? "published" : "rejected")
        }),
      60_000,
      "the YouTube decisions on YouTube"
    )

    // feedback: one for every disagreement (approve harmful, reject harmless), none otherwise
    const disagreements = [...decided].filter(([, d]) => (d.decision === "approve") === d.harmful)
    expect(disagreements.length).toBeGreaterThan(0)
    const received = (await Effect.runPromise(sandbox.feedback)).slice(feedbackBefore)
    expect(received).toHaveLength(disagreements.length)
    for (const [key, d] of disagreements) {
      const [source, ...rest] = key.split("/")
      const reference = rest.join("/")
      const [stored] = query<{ request: string }>(
        stateFile,
        "SELECT request FROM warden_items WHERE source = ? AND reference = ?",
        source!,
        reference
      )
      const match = received.filter((f) => f.rawBody.includes(`"analyzeRequest":${stored!.request}`))
      expect(match).toHaveLength(1)
      const body = JSON.parse(match[0]!.rawBody)
      expect(body.confidence).toBe("HIGH")
      if (d.decision === "approve") expect(body.classificationsToRemove.length).toBeGreaterThan(0)
      else expect(body.notes).toBe("rejected by a moderator")
    }
  }, 300_000)

  it("POST /api/policy/test refuses an RSS rule's hide as config check does; review: true is tested", async () => {
    const hide = await daemon.admin("/api/policy/test", {
      method: "POST",
      body: JSON.stringify({ source: "forum", rules: [{ name: "h", when: { type: ["HATEFUL"] }, actions: ["hide"] }] })
    })
    expect(hide.status).toBe(400)
    expect(hide.body.error.message).toContain("rules.0.actions.0: connector rss cannot 'hide'; it can: (none)")
    const review = await daemon.admin("/api/policy/test", {
      method: "POST",
      body: JSON.stringify({ source: "forum", rules: [{ name: "h", when: { type: ["HATEFUL"] }, review: true }] })
    })
    expect(review.status).toBe(200)
    expect(review.body.rules[0].actions).toEqual({})
    expect(review.body.totals.noLongerReviewed).toBe(review.body.rules[1].matched)
  })

  it("a second decision of an item is a 409 naming the first moderator, and nothing is done twice", async () => {
    const decided = (await daemon.admin("/api/review?state=decided&limit=5")).body.items
    const feedbackBefore = (await Effect.runPromise(sandbox.feedback)).length
    const callsBefore = fake.calls("/youtube/v3/comments/setModerationStatus").length
    const actionsBefore = query(stateFile, "SELECT COUNT(*) AS n FROM warden_actions")
    for (const row of decided) {
      const other = row.decidedBy === "alice" ? BOB : ALICE
      const again = await decide(other, row.source, row.reference, {
        decision: row.state === "approved" ? "reject" : "approve"
      })
      expect(again.status).toBe(409)
      expect(again.body.error.code).toBe("ALREADY_DECIDED")
      expect(again.body.error.message).toContain(`already decided by ${row.decidedBy} at `)
    }
    expect((await Effect.runPromise(sandbox.feedback)).length).toBe(feedbackBefore)
    expect(fake.calls("/youtube/v3/comments/setModerationStatus").length).toBe(callsBefore)
    expect(query(stateFile, "SELECT COUNT(*) AS n FROM warden_actions")).toEqual(actionsBefore)
  }, 60_000)
})
