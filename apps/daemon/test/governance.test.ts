/**
 * Policy backtests, erasure and retention end to end: a daemon (in process, built from a config file)
 * analyses items from the fake platform against the sandbox and acts on them; then
 * `POST /api/policy/test` and `warden policy test` replay the stored verdicts through changed rules
 * (counts checked against what was published), `DELETE /api/items/{reference}`,
 * `DELETE /api/authors/{id}` and `warden erase` remove the content (feedback on it is then refused),
 * and a retention sweep erases old content while a redelivered old item is still not sent again.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkConfig } from "../src/config/index.ts"
import { specOf } from "../src/FromConfig.ts"
import { waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import * as StateDb from "./support/StateDb.ts"
import { pluginSourceConfig, startPlatform } from "./support/TestPlatform.ts"
import { warden } from "./support/WardenCli.ts"

let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
let platform: Awaited<ReturnType<typeof startPlatform>>
let daemon: Awaited<ReturnType<typeof startDaemonInProcess>>
let dir: string
let config: string
let state: string

const analyseRequests = async () => {
  const r = await fetch(`${sandbox.url}/_sandbox/requests`)
  return ((await r.json()) as any).requests.filter((q: any) => q.path === "/analyze/v1/text").length as number
}

beforeAll(async () => {
  sandbox = await Sandbox.startPromise({ requestLogSize: 5000 })
  platform = await startPlatform()
  dir = mkdtempSync(join(tmpdir(), "warden-governance-"))
  state = join(dir, "state.db")
  config = writeConfig(dir, {
    api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url },
    state: { sqlite: state },
    sources: [
      pluginSourceConfig(platform.url, {
        retention: "30 days",
        rules: [{ name: "remove", when: { recommendedAction: ["REMOVE"] }, actions: ["hide"] }]
      })
    ],
    // The sql sink's records carry the text: its table holds a copy to erase.
    sinks: [{ type: "sql", content: true }]
  })
  const checked = await Effect.runPromise(checkConfig(config, { env: {} }))
  const { spec } = specOf(checked)
  daemon = await startDaemonInProcess({ ...spec, sinks: spec.sinks, sinkNames: spec.sinkNames })
  // 2 threats, 3 insults (one with an author to erase), 1 criticism, 4 neutral: 5 hidden, 5 kept
  const items: Array<[string, string]> = [
    ["t/1", "[[THREAT]] I will find you"],
    ["t/2", "[[THREAT]] watch your back"],
    ["i/1", "[[INSULT]] you are an idiot"],
    ["i/2", "[[INSULT]] what a clown"],
    ["i/3", "[[INSULT]] PRIVATE-TEXT-4411 moron"],
    ["c/1", "[[CRITICISM]] this update is bad"],
    ["n/1", "nice weather"],
    ["n/2", "see you tomorrow"],
    ["n/3", "thanks for the stream"],
    ["n/4", "PRIVATE-TEXT-9921 lovely day"]
  ]
  for (const [reference, text] of items) platform.publish({ kind: "upsert", reference, text })
  await waitFor(
    () => StateDb.query<{ n: number }>(state, "SELECT COUNT(*) AS n FROM warden_items")[0]?.n === items.length,
    30_000,
    "every item analysed"
  )
  await waitFor(
    () => StateDb.query<{ n: number }>(state, "SELECT COUNT(*) AS n FROM warden_actions")[0]?.n === 5,
    10_000,
    "the hide actions"
  )
}, 60_000)

afterAll(async () => {
  await daemon?.close()
  await platform?.close()
  await sandbox?.close()
})

const CHANGED_RULES = [
  // threats: hide -> delete (changed action)
  { name: "threats", when: { classifications: { anyOf: ["THREAT"] } }, actions: ["delete"] },
  // insults: hide -> nothing (no longer acted)
  { name: "insults", when: { classifications: { anyOf: ["INSULT"] } }, actions: [] },
  // criticism: nothing -> holdForReview (newly acted)
  { name: "criticism", when: { classifications: { anyOf: ["CRITICISM"] } }, actions: ["holdForReview"] }
]

const expectChangedRulesReport = (report: any) => {
  expect(report).toMatchObject({ source: "platform", replayed: 10, withoutVerdict: 0 })
  const byRule = Object.fromEntries(report.rules.map((r: any) => [r.rule, r]))
  expect(byRule.threats).toMatchObject({
    matched: 2,
    actions: { delete: 2 },
    newlyActed: { count: 0 },
    noLongerActed: { count: 0 },
    changedAction: { count: 2 }
  })
  expect(
    byRule.threats.changedAction.samples.map((s: any) => [s.reference, s.before, s.after, s.beforeRule]).sort()
  ).toEqual([
    ["t/1", ["hide"], ["delete"], "remove"],
    ["t/2", ["hide"], ["delete"], "remove"]
  ])
  expect(byRule.insults).toMatchObject({ matched: 3, actions: {}, noLongerActed: { count: 3 } })
  expect(byRule.criticism).toMatchObject({ matched: 1, actions: { holdForReview: 1 }, newlyActed: { count: 1 } })
  expect(byRule.criticism.newlyActed.samples[0]).toMatchObject({
    reference: "c/1",
    before: [],
    after: ["holdForReview"]
  })
  expect(byRule["(no rule)"]).toMatchObject({ matched: 4, newlyActed: { count: 0 }, noLongerActed: { count: 0 } })
  expect(report.totals).toEqual({
    newlyActed: 1,
    noLongerActed: 3,
    changedAction: 2,
    newlyReviewed: 0,
    noLongerReviewed: 0,
    unchanged: 4
  })
}

describe("policy backtest", () => {
  it("POST /api/policy/test replays the stored verdicts through changed rules, counts checked against the data", async () => {
    const r = await daemon.admin("/api/policy/test", {
      method: "POST",
      body: JSON.stringify({ source: "platform", rules: CHANGED_RULES, since: "1h" })
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expectChangedRulesReport(r.body)
  })

  it("the configured rules replayed change nothing; a window after the items replays none", async () => {
    const same = await daemon.admin("/api/policy/test", {
      method: "POST",
      body: JSON.stringify({ source: "platform" })
    })
    expect(same.body.totals).toEqual({
      newlyActed: 0,
      noLongerActed: 0,
      changedAction: 0,
      newlyReviewed: 0,
      noLongerReviewed: 0,
      unchanged: 10
    })
    expect(same.body.rules.find((r: any) => r.rule === "remove")).toMatchObject({ matched: 5, actions: { hide: 5 } })
    const later = await daemon.admin("/api/policy/test", {
      method: "POST",
      body: JSON.stringify({ source: "platform", since: new Date(Date.now() + 60_000).toISOString() })
    })
    expect(later.body.replayed).toBe(0)
  })

  it("POST /api/policy/test refuses bad rules naming the field, and an unknown source", async () => {
    const bad = await daemon.admin("/api/policy/test", {
      method: "POST",
      body: JSON.stringify({ source: "platform", rules: [{ name: "x y", actions: ["hide"] }] })
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain("rules.0.name")
    const unknown = await daemon.admin("/api/policy/test", { method: "POST", body: JSON.stringify({ source: "nope" }) })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.parameter).toBe("source")
  })

  it("warden policy test --rules FILE --format json prints the same report; the table names each rule", async () => {
    const rules = join(dir, "rules.yaml")
    writeFileSync(rules, JSON.stringify({ rules: CHANGED_RULES }))
    const json = await warden([
      "policy",
      "test",
      "--config",
      config,
      "--rules",
      rules,
      "--since",
      "1h",
      "--format",
      "json"
    ])
    expect(json.stderr).toBe("")
    expect(json.code).toBe(0)
    expectChangedRulesReport(JSON.parse(json.stdout))
    const table = await warden(["policy", "test", "--config", config, "--rules", rules])
    expect(table.code).toBe(0)
    const lines = table.stdout.split("\n")
    expect(lines[0]).toMatch(/^source platform: 10 verdicts since .* replayed$/)
    expect(lines.find((l) => l.startsWith("threats"))).toMatch(/^threats\s+2\s+0\s+delete 2\s+0\s+0\s+2\s+0\s+0$/)
    expect(table.stdout).toContain(
      "totals: 1 newly acted, 3 no longer acted, 2 changed action, 0 newly sent to review, 0 no longer sent to review, 4 unchanged"
    )
    expect(table.stdout).toContain("criticism newly acted: c/1 v1 (none -> holdForReview)")
  })

  it("warden policy test refuses a rules file with a bad rule (exit 78, path) and a bad --since (exit 2)", async () => {
    const rules = join(dir, "bad-rules.yaml")
    writeFileSync(rules, "- name: ok\n  when: { severityAtLeast: 3 }\n")
    const bad = await warden(["policy", "test", "--config", config, "--rules", rules])
    expect(bad.code).toBe(78)
    expect(bad.stderr).toContain("rules.0.when.severityAtLeast")
    const since = await warden(["policy", "test", "--config", config, "--since", "last tuesday"])
    expect(since.code).toBe(2)
    expect(since.stderr).toContain("--since")
  })
})

/** The bytes of the state database's files (the file and its WAL). */
const files = () => {
  let bytes = readFileSync(state)
  try {
    bytes = Buffer.concat([bytes, readFileSync(`${state}-wal`)])
  } catch {
    // no WAL file
  }
  return bytes
}

describe("erasure", () => {
  it("DELETE /api/items/{reference} erases every copy; feedback on it is then refused with ERASED", async () => {
    expect(files().includes(Buffer.from("PRIVATE-TEXT-4411"))).toBe(true)
    const r = await daemon.admin(`/api/items/${encodeURIComponent("i/3")}`, { method: "DELETE" })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.counts).toMatchObject({ items: 1, sqlSink: 1 })
    expect(r.body.references).toEqual([{ source: "platform", reference: "i/3" }])
    const rows = JSON.stringify(
      [
        "warden_items",
        "warden_segments",
        "warden_outbox",
        "warden_dead_letters",
        "warden_verdicts",
        "warden_feedback"
      ].map((t) => StateDb.query(state, `SELECT * FROM ${t}`))
    )
    expect(rows).not.toContain("PRIVATE-TEXT-4411")
    expect(files().includes(Buffer.from("PRIVATE-TEXT-4411"))).toBe(false)
    const feedback = await daemon.admin("/api/feedback", {
      method: "POST",
      body: JSON.stringify({ reference: "i/3", notes: "not an insult" })
    })
    expect(feedback.status).toBe(410)
    expect(feedback.body.error.code).toBe("ERASED")
    const missing = await daemon.admin("/api/items/nope", { method: "DELETE" })
    expect(missing.status).toBe(404)
    const audit = await daemon.admin("/api/erasures")
    expect(audit.body.erasures[0]).toMatchObject({ actor: "admin-token", selector: "reference", target: "i/3" })
  })

  it("warden erase --reference prints the counts and the audit id, and an unknown reference fails", async () => {
    const r = await warden(["erase", "--config", config, "--reference", "n/4"])
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^erased 1 item version \(1 reference\) of reference n\/4\n/)
    expect(r.stdout).toMatch(/sql sink 1/)
    expect(files().includes(Buffer.from("PRIVATE-TEXT-9921"))).toBe(false)
    const none = await warden(["erase", "--config", config, "--reference", "never-seen"])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain("no stored item with reference never-seen")
    const both = await warden(["erase", "--config", config])
    expect(both.code).toBe(2)
  })

  it("DELETE /api/authors/{id} erases the author's items (found through the stored event)", async () => {
    platform.publish({ kind: "upsert", reference: "a/1", text: "AUTHOR-TEXT-5150 hello" })
    platform.publish({ kind: "upsert", reference: "a/2", text: "AUTHOR-TEXT-7733 hello", author: "u-77" })
    await waitFor(
      () => StateDb.query(state, "SELECT 1 FROM warden_items WHERE reference IN ('a/1', 'a/2')").length === 2,
      10_000,
      "a/1 and a/2 analysed"
    )
    const [row] = StateDb.query<{ author: string | null }>(
      state,
      "SELECT author FROM warden_items WHERE reference = 'a/1'"
    )
    // an event without an author: nothing to erase by author, a 404
    expect(row!.author).toBeNull()
    const none = await daemon.admin("/api/authors/someone", { method: "DELETE" })
    expect(none.status).toBe(404)
    // a/2 as a daemon before the author column recorded it: the author only in the stored event
    expect(StateDb.query(state, "SELECT author FROM warden_items WHERE reference = 'a/2'")).toEqual([
      { author: "u-77" }
    ])
    StateDb.query(state, "UPDATE warden_items SET author = NULL WHERE reference = 'a/2'")
    const erased = await daemon.admin("/api/authors/u-77", { method: "DELETE" })
    expect(erased.status, JSON.stringify(erased.body)).toBe(200)
    expect(erased.body.references).toEqual([{ source: "platform", reference: "a/2" }])
    expect(files().includes(Buffer.from("AUTHOR-TEXT-7733"))).toBe(false)
    expect(files().includes(Buffer.from("u-77-name"))).toBe(false)
  })
})

describe("retention", () => {
  it("erases content older than the retention and keeps dedupe: a redelivered old item is not sent again", async () => {
    const sent = await analyseRequests()
    // age every stored item past the 30 days retention, then run one sweep pass
    StateDb.query(state, `UPDATE warden_items SET created_at = created_at - ${31 * 86_400_000}`)
    const { sweepOnce } = await import("../src/engine/Retention.ts")
    const { Erasure } = await import("../src/state/Erasure.ts")
    const StateStore = await import("../src/state/StateStore.ts")
    const { sqlLayer } = await import("../src/Daemon.ts")
    const erased = await Effect.runPromise(
      sweepOnce([{ id: "platform", retentionMillis: 30 * 86_400_000 }]).pipe(
        Effect.provide(
          Erasure.layer.pipe(
            Layer.provideMerge(StateStore.layer),
            Layer.provideMerge(sqlLayer({ _tag: "sqlite", filename: state }))
          )
        )
      )
    )
    // every stored item version but the three erased above (i/3, n/4, a/2)
    expect(erased).toBe(9)
    expect(StateDb.query(state, "SELECT COUNT(*) AS n FROM warden_items WHERE request IS NOT NULL")).toEqual([{ n: 0 }])
    expect(StateDb.query(state, "SELECT COUNT(*) AS n FROM warden_items WHERE content_hash <> ''")).toEqual([{ n: 12 }])
    expect(files().includes(Buffer.from("AUTHOR-TEXT-5150"))).toBe(false)
    // the platform delivers an old item again, unchanged: dedupe still knows it
    platform.publish({ kind: "upsert", reference: "t/1", text: "[[THREAT]] I will find you" })
    platform.publish({ kind: "upsert", reference: "fresh/1", text: "a new comment" })
    await waitFor(
      () => StateDb.query(state, "SELECT 1 FROM warden_items WHERE reference = 'fresh/1'").length === 1,
      10_000,
      "the fresh item analysed"
    )
    expect(await analyseRequests()).toBe(sent + 1)
    expect(StateDb.query(state, "SELECT version FROM warden_items WHERE reference = 't/1'")).toEqual([{ version: 1 }])
    const audit = await daemon.admin("/api/erasures")
    expect(audit.body.erasures[0]).toMatchObject({ actor: "retention", target: "30d", source: "platform" })
  })
})
