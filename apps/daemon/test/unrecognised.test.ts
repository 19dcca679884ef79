/**
 * An answer with none of the fields a verdict is made of (`200 {"foo":1}`) is its own outcome,
 * `unrecognised`: never a clean verdict, counted, shown by /readyz and /metrics, handled by the
 * source's failure mode, and analysed again with `warden reanalyse` once the API is fixed.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Verdict from "../src/engine/Verdict.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { query } from "./support/StateDb.ts"
import { platformSource, startPlatform } from "./support/TestPlatform.ts"
import { warden } from "./support/WardenCli.ts"

describe("recognising a verdict", () => {
  it("an answer without a verdict is unrecognised, not clean", () => {
    expect(Verdict.isRecognised("text", { foo: 1 })).toBe(false)
    expect(Verdict.isRecognised("text", { textAnalysis: {} })).toBe(false)
    expect(Verdict.isRecognised("text", { textAnalysis: { language: "en" } })).toBe(false)
    expect(Verdict.isRecognised("text", null)).toBe(false)
    expect(Verdict.isRecognised("username", { textAnalysis: { type: "NEUTRAL" } })).toBe(false)
    expect(Verdict.isRecognised("image", { imageAnalysis: {} })).toBe(false)
    expect(Verdict.isRecognisedLegacy({ reference: "r", meta: {} })).toBe(false)
  })

  it("any one verdict field is enough: a clean answer is recognised", () => {
    expect(Verdict.isRecognised("text", { textAnalysis: { type: "NEUTRAL", classifications: [] } })).toBe(true)
    expect(Verdict.isRecognised("text", { textAnalysis: { severity: "NONE" } })).toBe(true)
    expect(Verdict.isRecognised("username", { usernameAnalysis: { recommendedAction: "KEEP" } })).toBe(true)
    expect(Verdict.isRecognised("image", { imageAnalysis: { classifications: [] } })).toBe(true)
    expect(
      Verdict.isRecognised("image", { imageAnalysis: { ocrAnalysis: { textAnalysis: { type: "HATEFUL" } } } })
    ).toBe(true)
    expect(Verdict.isRecognisedLegacy({ type: "HATEFUL", meta: { classifications: ["THREAT"] } })).toBe(true)
  })
})

/**
 * The bodies of the API below, with spacing of their own: the daemon stores each answer as received,
 * so these are what `warden_items.response` holds, byte for byte.
 */
const UNFIXED_BODY = '{ "foo": 1 }'
const FIXED_BODY = JSON.stringify(
  {
    textAnalysis: { type: "HATEFUL", classifications: ["THREAT"], severity: "VERY_HIGH", recommendedAction: "REMOVE" }
  },
  null,
  1
)

/** An API that answers `200 {"foo":1}` to every analysis until it is fixed; then a threat verdict. */
const startApi = async () => {
  let fixed = false
  let calls = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      calls++
      res.writeHead(200, { "content-type": "application/json" })
      res.end(fixed ? FIXED_BODY : UNFIXED_BODY)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fix: () => {
      fixed = true
    },
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

describe("warden analyze and an answer without a verdict", () => {
  it("prints the answer and exits 1 with one line saying it held no verdict", async () => {
    const api = await startApi()
    cleanups.push(api.close)
    const args = ["analyze", "text", "--base-url", api.url, "--api-key", "k"]
    const channel = ["--channel", "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c", "I will kill you"]
    const failed = await warden([...args, ...channel])
    expect(failed.code).toBe(1)
    expect(JSON.parse(failed.stdout)).toEqual({ foo: 1 })
    expect(failed.stderr.trim()).toBe(
      "warden: UNRECOGNISED_ANSWER: the API answered {foo} with none of the fields a verdict is made of (type, severity, recommendedAction, classifications): not a verdict"
    )
    api.fix()
    const ok = await warden([...args, ...channel])
    expect(ok.code, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout).textAnalysis.type).toBe("HATEFUL")
  })
})

/** A daemon on an API answering `{"foo":1}`, one item published and recorded unrecognised. */
const unrecognisedScenario = async () => {
  const api = await startApi()
  cleanups.push(api.close)
  const platform = await startPlatform()
  cleanups.push(platform.close)
  const dir = mkdtempSync(join(tmpdir(), "warden-unrecognised-"))
  const db = join(dir, "state.db")
  const spec = {
    state: { _tag: "sqlite" as const, filename: db },
    api: { apiKey: "k", baseUrls: { global: api.url }, retry: { maxAttempts: 1 } },
    sources: [
      platformSource(platform.url, {
        rules: [{ name: "threats", when: { severityAtLeast: "HIGH" }, actions: [{ kind: "delete" }] }],
        failure: { mode: "reject", afterMillis: 60_000, action: "holdForReview" }
      })
    ],
    sinks: Layer.succeed(SinkList, []),
    sinkNames: []
  }
  let daemon = await startDaemonInProcess(spec)
  cleanups.push(() => daemon.close())
  platform.publish({ kind: "upsert", reference: "m/1", text: "I will kill you" })
  const decision = async () => (await daemon.admin("/api/decisions/m%2F1")).body
  await waitFor(async () => (await decision()).latest?.status === "unrecognised", 20_000, "unrecognised")
  return {
    api,
    platform,
    dir,
    db,
    daemon: () => daemon,
    decision,
    restart: async () => {
      await daemon.close()
      daemon = await startDaemonInProcess(spec)
    }
  }
}

describe("the daemon and an API answering without verdicts", () => {
  it("records unrecognised (not analysed), applies the failure mode, shows it in /readyz and /metrics", async () => {
    const t = await unrecognisedScenario()
    const first = await t.decision()
    expect(first.latest.verdict).toBeNull()
    expect(first.latest.error).toMatchObject({ code: "UNRECOGNISED_ANSWER" })
    // failure mode reject: its action, never the rule's (no verdict matched a rule)
    await waitFor(() => t.platform.executed.length > 0, 10_000, "the failure-mode action")
    expect(t.platform.executed.map((a) => a.kind)).toEqual(["holdForReview"])

    const ready = await t.daemon().admin("/readyz")
    expect(ready.status).toBe(503)
    expect(JSON.stringify(ready.body)).toContain("without a verdict")
    const metrics = await (
      await fetch(`${t.daemon().adminUrl}/metrics`, { headers: { authorization: "Bearer test-admin-token" } })
    ).text()
    expect(metrics).toMatch(/warden_unrecognised_answers_total\{[^}]*source="plat"[^}]*\} 1/)
    expect(metrics).toMatch(/warden_items_out_total\{[^}]*status="unrecognised"[^}]*\} 1/)
  }, 60_000)

  it("once the API is fixed, a restarted daemon analyses the unrecognised items again and acts on the verdict", async () => {
    const t = await unrecognisedScenario()
    t.api.fix()
    const before = t.api.calls()
    await t.restart()
    await waitFor(async () => (await t.decision()).latest?.status === "analysed", 20_000, "the re-analysis")
    expect((await t.decision()).latest).toMatchObject({ version: 2, verdict: { classifications: ["THREAT"] } })
    expect(t.api.calls()).toBeGreaterThan(before)
    await waitFor(() => t.platform.executed.some((a) => a.kind === "delete"), 10_000, "the rule's action")
    // each version keeps the answer it was given, as the API sent it
    const stored = query<{ response: string }>(t.db, "SELECT response FROM warden_items ORDER BY version")
    expect(stored.map((r) => r.response)).toEqual([UNFIXED_BODY, FIXED_BODY])
  }, 60_000)

  it("warden reanalyse --status unrecognised also queues what an older daemon recorded as analysed with an empty verdict", async () => {
    const t = await unrecognisedScenario()
    await t.daemon().close()
    // What a daemon before the unrecognised outcome stored for {"foo":1}: analysed, no verdict fields.
    const db = new DatabaseSync(t.db)
    db.prepare(
      `UPDATE warden_items SET status = 'analysed', verdict = '{"classifications":[]}', classifications = ',,', error = NULL`
    ).run()
    db.close()
    t.api.fix()
    const config = join(t.dir, "warden.yaml")
    writeFileSync(config, JSON.stringify({ state: { sqlite: t.db } }))
    const { code, stdout, stderr } = await warden(["reanalyse", "--config", config, "--status", "unrecognised"])
    expect(code, stderr).toBe(0)
    expect(stdout).toContain("queued 1 item with status unrecognised")
    await t.restart()
    await waitFor(async () => (await t.decision()).latest?.version === 2, 20_000, "the re-analysis")
    expect((await t.decision()).latest).toMatchObject({ status: "analysed", verdict: { type: "HATEFUL" } })
  }, 60_000)

  it("reanalyse refuses an unknown status (exit 2) and an unknown source", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-reanalyse-"))
    const config = join(dir, "warden.yaml")
    writeFileSync(config, JSON.stringify({ state: { sqlite: join(dir, "state.db") } }))
    expect(await warden(["reanalyse", "--config", config, "--status", "clean"])).toMatchObject({ code: 2 })
    expect(await warden(["reanalyse", "--config", config, "--status", "failed", "--source", "nope"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("no source 'nope'")
    })
  })
})
