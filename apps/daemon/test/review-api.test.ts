/**
 * The review queue through the admin API (issue 36): a `review: true` rule sends items to Warden's
 * queue (and holds them on a platform that can), named moderators decide them, the decision reaches
 * the platform and, where it disagrees with the verdict, the Content Analysis API as feedback (the
 * stored request byte for byte, confidence HIGH); a second decision is a 409 naming the first
 * moderator with nothing done twice; a viewer cannot decide; the audit names who did what.
 */
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitFor } from "./support/DaemonProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"
import { query } from "./support/StateDb.ts"
import { connector, platformSource } from "./support/TestPlatform.ts"

const ALICE = "alice-token-0123456789"
const BOB = "bob-token-0123456789ab"
const VIC = "vic-token-0123456789ab"

describe("the review queue's admin API", () => {
  let started: Awaited<ReturnType<typeof startSandboxDaemon>>
  let daemon: typeof started.daemon

  beforeAll(async () => {
    started = await startSandboxDaemon({
      sources: ([url]) => [
        platformSource(url!, {
          id: "plat",
          platform: "testplatform",
          connectorActions: connector.capabilities.actions,
          rules: [{ name: "hold-harmful", when: { recommendedAction: ["REMOVE"] }, actions: [], review: true }]
        })
      ],
      moderators: [
        { name: "alice", role: "moderator", token: Redacted.make(ALICE) },
        { name: "bob", role: "moderator", token: Redacted.make(BOB) },
        { name: "vic", role: "viewer", token: Redacted.make(VIC) }
      ]
    })
    daemon = started.daemon
    const platform = started.platforms[0]!
    platform.publish({ kind: "upsert", reference: "r/1", text: "You are an idiot", author: "u-1" })
    platform.publish({ kind: "upsert", reference: "r/2", text: "[[THREAT]] I know where you live", author: "u-2" })
    platform.publish({ kind: "upsert", reference: "r/3", text: "Thank you, lovely article", author: "u-3" })
    await waitFor(
      async () => (await daemon.admin("/api/review")).body.pending?.total === 2,
      20_000,
      "two items in the review queue"
    )
    // both held on the platform too (the connector declares holdForReview)
    await waitFor(async () => platform.executed.length === 2, 20_000, "the holds")
  }, 60_000)
  afterAll(() => started.close())

  const decide = (token: string, reference: string, body: unknown) =>
    daemon.as(token, `/api/decisions/${encodeURIComponent(reference)}/review`, {
      method: "POST",
      body: JSON.stringify(body)
    })

  it("lists the queue most severe first, each item with its content, author, verdict, rule and platform state", async () => {
    expect(started.platforms[0]!.executed.map((a) => `${a.reference}:${a.kind}`).sort()).toEqual([
      "r/1:holdForReview",
      "r/2:holdForReview"
    ])
    const page = await daemon.as(VIC, "/api/review?state=pending")
    expect(page.status).toBe(200)
    expect(page.body.pending).toEqual({ total: 2, bySource: { plat: 2 } })
    const [first, second] = page.body.items
    expect(first.verdict.severity >= second.verdict.severity || first.verdict.severity === "VERY_HIGH").toBe(true)
    const insult = page.body.items.find((i: { reference: string }) => i.reference === "r/1")
    expect(insult).toMatchObject({
      source: "plat",
      version: 1,
      kind: "item",
      state: "pending",
      rule: "hold-harmful",
      content: { type: "text", text: "You are an idiot" },
      author: { key: "testplatform:u-1", identifier: "u-1", username: "u-1-name" },
      platform: { held: true, canRemove: true, canRestore: true },
      versions: 1,
      decidedBy: null
    })
    expect(Number.isNaN(Date.parse(insult.createdAt))).toBe(false)
    // a page of one, then the next by its cursor
    const one = await daemon.admin("/api/review?limit=1")
    expect(one.body.items).toHaveLength(1)
    const next = await daemon.admin(`/api/review?limit=1&cursor=${one.body.nextCursor}`)
    expect(next.body.items.map((i: { reference: string }) => i.reference)).not.toEqual(
      one.body.items.map((i: { reference: string }) => i.reference)
    )
    expect(next.body.nextCursor).toBeNull()
  })

  it("/metrics: what waits per source and for how long, decisions per moderator and outcome, matches per rule", async () => {
    const res = await fetch(`${daemon.adminUrl}/metrics`, { headers: { authorization: `Bearer ${VIC}` } })
    const text = await res.text()
    expect(text).toMatch(/warden_review_pending\{[^}]*source="plat"[^}]*\} 2/)
    expect(text).toMatch(/warden_review_oldest_pending_seconds\{[^}]*source="plat"[^}]*\} \d/)
    expect(text).toMatch(/warden_rule_matches_total\{[^}]*rule="hold-harmful"[^}]*\} 2/)
  })

  it("refuses filters it does not know, naming the values it takes", async () => {
    const state = await daemon.admin("/api/review?state=open")
    expect(state.status).toBe(400)
    expect(state.body.error).toMatchObject({ code: "BAD_REQUEST", parameter: "state" })
    expect(state.body.error.message).toContain("pending, decided")
    const kind = await daemon.admin("/api/review?kind=report")
    expect(kind.body.error.message).toContain("item, appeal")
  })

  it("a viewer cannot decide: 403 naming who, what and the role needed", async () => {
    const refused = await decide(VIC, "r/1", { decision: "approve" })
    expect(refused.status).toBe(403)
    expect(refused.body.error).toEqual({
      code: "FORBIDDEN",
      message: "viewer vic cannot decide reviews (needs moderator)"
    })
  })

  it("an approval of a harmful verdict restores the item and sends feedback (the stored request, HIGH); a second decision is a 409 naming the first moderator, nothing done twice", async () => {
    const platform = started.platforms[0]!
    const before = (await Effect.runPromise(started.sandbox.feedback)).length
    const approved = await decide(ALICE, "r/1", {
      decision: "approve",
      note: "friends joking",
      classifications: ["INSULT"]
    })
    expect(approved.status).toBe(200)
    expect(approved.body.review).toMatchObject({ state: "approved", decidedBy: "alice", note: "friends joking" })
    expect(approved.body.actions.map((a: { kind: string; rule: string }) => `${a.kind}/${a.rule}`)).toEqual([
      "restore/review"
    ])
    expect(approved.body.feedback).toMatchObject({ reference: "r/1", version: 1, endpoint: "/feedback/v1/text" })
    await waitFor(async () => platform.executed.some((a) => a.kind === "restore"), 20_000, "the restore")
    const received = await Effect.runPromise(started.sandbox.feedback)
    expect(received.length).toBe(before + 1)
    const sent = JSON.parse(received.at(-1)!.rawBody)
    expect(sent).toMatchObject({ classificationsToRemove: ["INSULT"], notes: "friends joking", confidence: "HIGH" })
    // the request analysed, byte for byte, as stored for the item
    const [stored] = query<{ request: string }>(
      started.stateFile,
      "SELECT request FROM warden_items WHERE reference = 'r/1'"
    )
    expect(received.at(-1)!.rawBody).toContain(`"analyzeRequest":${stored!.request}`)

    const second = await decide(BOB, "r/1", { decision: "reject" })
    expect(second.status).toBe(409)
    expect(second.body.error.code).toBe("ALREADY_DECIDED")
    expect(second.body.error.message).toContain("already decided by alice at")
    expect((await Effect.runPromise(started.sandbox.feedback)).length).toBe(before + 1)
    expect(platform.executed.filter((a) => a.reference === "r/1").map((a) => a.kind)).toEqual([
      "holdForReview",
      "restore"
    ])
  })

  it("a rejection that agrees with the verdict rejects on the platform and sends no feedback; the audit names each moderator", async () => {
    const platform = started.platforms[0]!
    const before = (await Effect.runPromise(started.sandbox.feedback)).length
    const rejected = await decide(BOB, "r/2", { decision: "reject" })
    expect(rejected.status).toBe(200)
    expect(rejected.body.feedback).toBeNull()
    expect(rejected.body.feedbackNote).toContain("agrees with the verdict")
    expect(rejected.body.platformNote).toBe("reject queued on the platform")
    await waitFor(
      async () => platform.executed.some((a) => a.reference === "r/2" && a.kind === "reject"),
      20_000,
      "the reject"
    )
    expect((await Effect.runPromise(started.sandbox.feedback)).length).toBe(before)

    // the decision page names the rule (it has no platform action of its own) and the review's state
    const page = await daemon.admin("/api/decisions/r%2F2")
    expect(page.body.rule).toBe("hold-harmful")
    expect(page.body.latest).toMatchObject({
      rule: "hold-harmful",
      review: { kind: "item", state: "rejected", decidedBy: "bob" }
    })
    expect(page.body.reviews.map((r: { state: string; decidedBy: string }) => `${r.state}:${r.decidedBy}`)).toEqual([
      "rejected:bob"
    ])
    const listed = (await daemon.admin("/api/decisions?rule=hold-harmful")).body.decisions
    expect(listed.find((d: { reference: string }) => d.reference === "r/2")).toMatchObject({
      author: { key: "testplatform:u-2", username: "u-2-name" },
      review: { state: "rejected" }
    })
    expect(
      (await daemon.admin(`/api/decisions?author=${encodeURIComponent("testplatform:u-2")}`)).body.decisions
    ).toHaveLength(1)

    const decided = await daemon.admin("/api/review?state=decided")
    expect(
      decided.body.items.map((i: { reference: string; decidedBy: string }) => `${i.reference}:${i.decidedBy}`)
    ).toEqual(["r/2:bob", "r/1:alice"])
    expect(decided.body.pending.total).toBe(0)

    const audit = await daemon.admin("/api/audit?limit=20")
    const entries = audit.body.entries.map(
      (e: { actor: string; action: string; reference: string }) => `${e.actor} ${e.action} ${e.reference}`
    )
    expect(entries).toEqual(
      expect.arrayContaining([
        "alice review.approve r/1",
        "alice platform.restore r/1",
        "alice feedback r/1",
        "bob review.reject r/2",
        "bob platform.remove r/2"
      ])
    )
    const metrics = await (
      await fetch(`${daemon.adminUrl}/metrics`, { headers: { authorization: `Bearer ${ALICE}` } })
    ).text()
    expect(metrics).toMatch(/warden_review_decisions_total\{[^}]*moderator="alice"[^}]*outcome="approved"[^}]*\} 1/)
    expect(metrics).toMatch(/warden_review_decisions_total\{[^}]*moderator="bob"[^}]*outcome="rejected"[^}]*\} 1/)
    expect(metrics).toMatch(/warden_review_pending\{[^}]*source="plat"[^}]*\} 0/)
    const bobs = await daemon.admin("/api/audit?actor=bob")
    expect(bobs.body.entries.every((e: { actor: string }) => e.actor === "bob")).toBe(true)
    expect((await daemon.admin("/api/audit?action=nope")).status).toBe(400)
  })

  it("GET /api/review/stream: a second moderator's screen sees an item added and, once decided by another, decided", async () => {
    const controller = new AbortController()
    const res = await fetch(`${daemon.adminUrl}/api/review/stream`, {
      headers: { authorization: `Bearer ${BOB}` },
      signal: controller.signal
    })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/event-stream")
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    const until = async (what: RegExp) => {
      const deadline = Date.now() + 20_000
      while (!what.test(text)) {
        if (Date.now() > deadline) throw new Error(`no ${what} in the stream: ${text}`)
        const { value, done } = await reader.read()
        if (done) throw new Error("the stream ended")
        text += decoder.decode(value, { stream: true })
      }
    }
    try {
      await until(/retry: 2000/)
      started.platforms[0]!.publish({ kind: "upsert", reference: "r/4", text: "You are an idiot too", author: "u-4" })
      await until(/event: added\ndata: \{[^\n]*"reference":"r\/4"/)
      expect((await decide(ALICE, "r/4", { decision: "reject" })).status).toBe(200)
      await until(/event: decided\ndata: \{[^\n]*"reference":"r\/4"[^\n]*"state":"rejected"/)
      const decided = /event: decided\ndata: (.*)\n/.exec(text)![1]!
      expect(JSON.parse(decided)).toMatchObject({ reference: "r/4", decidedBy: "alice", state: "rejected" })
    } finally {
      controller.abort()
    }
    expect((await daemon.admin("/api/review/stream?kind=report")).status).toBe(400)
  })

  it("POST /api/policy/test counts what each rule sends to review, newly or no longer; author conditions over the stored history", async () => {
    const decisions = (await daemon.admin("/api/decisions?source=plat")).body.decisions as Array<{
      verdict: { recommendedAction?: string }
    }>
    const harmless = decisions.filter((d) => d.verdict.recommendedAction !== "REMOVE").length
    expect(harmless).toBeGreaterThan(0)
    const test = (rules: unknown) =>
      daemon.admin("/api/policy/test", { method: "POST", body: JSON.stringify({ source: "plat", rules, since: "1h" }) })
    // everything to review: the harmless items are newly sent there, and held (the connector can)
    const all = await test([{ name: "all", when: {}, review: true }])
    expect(all.status).toBe(200)
    expect(all.body.rules[0]).toMatchObject({ rule: "all", matched: decisions.length, review: decisions.length })
    expect(all.body.rules[0].actions).toEqual({ holdForReview: decisions.length })
    expect(all.body.totals).toMatchObject({ newlyReviewed: harmless, noLongerReviewed: 0 })
    // nothing to review: every item that went there no longer would
    const none = await test([{ name: "quiet", when: { type: ["NEUTRAL"] } }])
    expect(none.body.totals.noLongerReviewed).toBe(decisions.length - harmless)
    // an author condition, read from the stored history: each author here has one item
    const twice = await test([{ name: "twice", when: { author: { within: "1h", count: 2 } }, review: true }])
    expect(twice.body.rules[0]).toMatchObject({ rule: "twice", matched: 0 })
    const once = await test([{ name: "once", when: { author: { within: "1h", count: 1 } }, review: true }])
    expect(once.body.rules[0]).toMatchObject({ rule: "once", matched: decisions.length })
    // the rules config check refuses are refused here too
    const sink = await test([{ name: "s", sinks: ["nowhere"] }])
    expect(sink.status).toBe(400)
    expect(sink.body.error.message).toContain("rules.0.sinks.0: no sink named 'nowhere'")
    // an admin's tool: a moderator may not
    const moderator = await daemon.as(ALICE, "/api/policy/test", {
      method: "POST",
      body: JSON.stringify({ source: "plat" })
    })
    expect(moderator.status).toBe(403)
  })

  it("the signed-in caller is named: GET /api/session answers the moderator and role", async () => {
    const me = await daemon.as(ALICE, "/api/session")
    expect(me.body).toMatchObject({ via: "bearer", name: "alice", role: "moderator" })
    const shared = await daemon.admin("/api/session")
    expect(shared.body).toMatchObject({ name: "admin-token", role: "admin" })
  })
})
