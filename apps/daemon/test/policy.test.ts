/**
 * Policies and actions: rule matching, actions on the platform after the verdict, dry runs, retries,
 * feedback by reference and from moderators, and the failure modes while the API is down.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import type { Rule } from "../src/domain/Rule.ts"
import type * as Daemon from "../src/Daemon.ts"
import * as Policy from "../src/domain/Rule.ts"
import type { FailurePolicy } from "../src/domain/SourceSettings.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { jsonlRecords, jsonlSink } from "./support/FeedPipeline.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import * as StateDb from "./support/StateDb.ts"
import { platformSource, startPlatform } from "./support/TestPlatform.ts"

describe("rule matching", () => {
  const verdict = {
    type: "HATEFUL",
    classifications: ["INSULT", "THREAT"],
    severity: "HIGH",
    recommendedAction: "REMOVE",
    directedAt: "USER",
    language: "en"
  }
  it.each([
    [{}, true],
    [{ type: ["HATEFUL"] }, true],
    [{ type: ["SUPPORTIVE", "NEUTRAL"] }, false],
    [{ recommendedAction: ["REMOVE"] }, true],
    [{ recommendedAction: ["KEEP"] }, false],
    [{ severityAtLeast: "MEDIUM" }, true],
    [{ severityAtLeast: "HIGH" }, true],
    [{ severityAtLeast: "VERY_HIGH" }, false],
    [{ classifications: { anyOf: ["THREAT", "HATRED"] } }, true],
    [{ classifications: { anyOf: ["HATRED"] } }, false],
    [{ classifications: { allOf: ["INSULT", "THREAT"] } }, true],
    [{ classifications: { allOf: ["INSULT", "HATRED"] } }, false],
    [{ directedAt: ["USER"] }, true],
    [{ directedAt: ["SINGLE_PERSON"] }, false],
    [{ language: ["EN", "fr"] }, true],
    [{ language: ["de"] }, false],
    [{ type: ["HATEFUL"], severityAtLeast: "VERY_HIGH" }, false]
  ] as const)("%j matches: %s", (when, expected) => {
    expect(Policy.matches(when as never, verdict)).toBe(expected)
  })

  it("the first matching rule wins", () => {
    const rules = [
      { name: "threats", when: { classifications: { anyOf: ["THREAT"] } }, actions: [] },
      { name: "hateful", when: { type: ["HATEFUL"] }, actions: [] }
    ] as unknown as ReadonlyArray<Rule>
    expect(Policy.firstMatch(rules, verdict)?.name).toBe("threats")
    expect(Policy.firstMatch(rules, { classifications: [], type: "NEUTRAL" })).toBeUndefined()
  })

  it("an unknown severity ranks between LOW and MEDIUM", () => {
    expect(Policy.matches({ severityAtLeast: "LOW" } as never, { classifications: [], severity: "ODD" })).toBe(true)
    expect(Policy.matches({ severityAtLeast: "MEDIUM" } as never, { classifications: [], severity: "ODD" })).toBe(false)
  })

  it("a threshold the rules do not know never widens a rule: it matches only that exact name", () => {
    const when = { severityAtLeast: "HIGHEST" } as never
    for (const severity of ["LOW", "MEDIUM", "HIGH", "VERY_HIGH"])
      expect(Policy.matches(when, { classifications: [], severity })).toBe(false)
    expect(Policy.matches(when, { classifications: [], severity: "HIGHEST" })).toBe(true)
  })
})

const rules: ReadonlyArray<Rule> = [
  {
    name: "remove-threats",
    when: { classifications: { anyOf: ["THREAT"] } },
    actions: [{ kind: "hide" }, { kind: "timeoutAuthor", params: { durationSeconds: 600 } }]
  },
  { name: "insults", when: { recommendedAction: ["REMOVE"] }, actions: [{ kind: "holdForReview" }] }
] as unknown as ReadonlyArray<Rule>

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const setup = async (options: {
  readonly dryRun?: boolean
  readonly failure?: FailurePolicy
  readonly autoFeedback?: boolean
  readonly sandboxPort?: number
  readonly apiRetries?: number
}) => {
  const sandbox = await Sandbox.startPromise({
    requestLogSize: 5000,
    ...(options.sandboxPort ? { port: options.sandboxPort } : {})
  })
  const platform = await startPlatform()
  cleanups.push(() => platform.close())
  const dir = mkdtempSync(join(tmpdir(), "warden-policy-"))
  const out = join(dir, "out.jsonl")
  const state = join(dir, "state.db")
  const spec: Omit<Daemon.DaemonSpec, "admin"> = {
    state: { _tag: "sqlite", filename: state },
    api: {
      apiKey: "sandbox-standard-key",
      baseUrls: { global: sandbox.url },
      timeout: "1 second",
      retry: { maxAttempts: options.apiRetries ?? 3, baseDelay: "10 millis", maxDelay: "50 millis" }
    },
    sources: [
      platformSource(platform.url, {
        id: "platform",
        dryRun: options.dryRun ?? false,
        rules,
        failure: options.failure,
        autoFeedback: options.autoFeedback ?? false
      })
    ],
    ...jsonlSink(out),
    includeContent: false,
    pipeline: { pauseRetry: "200 millis", maxWait: "20 millis" }
  }
  const daemon = await startDaemonInProcess(spec)
  cleanups.push(daemon.close)
  const lines = () => jsonlRecords(out)
  const actions = () =>
    StateDb.query<{ reference: string; kind: string; status: string; attempts: number }>(
      state,
      "SELECT * FROM warden_actions ORDER BY reference, seq"
    )
  return { sandbox, platform, daemon, lines, actions, state }
}

describe("actions", () => {
  it("run on the platform after the verdict, as the first matching rule says, and are recorded", async () => {
    const t = await setup({})
    cleanups.push(() => t.sandbox.close())
    t.platform.publish({ kind: "upsert", reference: "p/1", text: "[[THREAT]] I will find you" })
    t.platform.publish({ kind: "upsert", reference: "p/2", text: "You are an idiot" })
    t.platform.publish({ kind: "upsert", reference: "p/3", text: "Lovely day, thanks" })
    await waitFor(() => t.actions().filter((a) => a.status === "done").length === 3, 15_000, "3 actions done")
    expect(t.platform.executed.map((a) => `${a.reference}:${a.kind}`).sort()).toEqual([
      "p/1:hide",
      "p/1:timeoutAuthor",
      "p/2:holdForReview"
    ])
    const timeout = t.platform.executed.find((a) => a.kind === "timeoutAuthor")
    expect(timeout?.params).toMatchObject({ durationSeconds: 600, verdict: { classifications: ["THREAT"] } })
    expect(timeout?.reason).toContain("remove-threats")
    await waitFor(() => t.lines().length === 3, 5_000, "3 verdicts in the sink")
    expect(t.lines().find((l) => l.reference === "p/1")).toMatchObject({
      rule: "remove-threats",
      actions: ["hide", "timeoutAuthor"]
    })
  })

  it("in a dry run, are recorded as would-do and never executed", async () => {
    const t = await setup({ dryRun: true })
    cleanups.push(() => t.sandbox.close())
    t.platform.publish({ kind: "upsert", reference: "d/1", text: "[[THREAT]] watch out" })
    await waitFor(() => t.actions().length === 2, 15_000, "actions recorded")
    await new Promise((r) => setTimeout(r, 500))
    expect(t.actions().map((a) => a.status)).toEqual(["would-do", "would-do"])
    expect(t.platform.attempts).toEqual([])
    expect(t.lines()[0]).toMatchObject({ dryRun: true, actions: ["hide", "timeoutAuthor"] })
  })

  // The backoff between attempts (1 s, 2 s, ...) is asserted on the TestClock in action-executor.test.ts.
  it("that the platform refuses once (503) are retried and recorded once as done", async () => {
    const t = await setup({})
    cleanups.push(() => t.sandbox.close())
    t.platform.failNext("holdForReview", 1)
    t.platform.publish({ kind: "upsert", reference: "r/1", text: "You are an idiot" })
    await waitFor(() => t.actions().some((a) => a.status === "done"), 20_000, "the action to succeed")
    expect(t.actions()).toMatchObject([{ reference: "r/1", kind: "holdForReview", status: "done", attempts: 2 }])
    expect(t.platform.attempts.length).toBe(2)
    expect(t.platform.executed.length).toBe(1)
  })
})

describe("feedback", () => {
  it("by reference sends the stored request byte-for-byte and records the id", async () => {
    const t = await setup({})
    cleanups.push(() => t.sandbox.close())
    t.platform.publish({ kind: "upsert", reference: "f/1", text: "You are an idiot" })
    await waitFor(() => t.lines().length === 1, 15_000, "the verdict")
    const stored = StateDb.query<{ request: string }>(
      t.state,
      "SELECT request FROM warden_items WHERE reference = 'f/1'"
    )[0]!.request

    const sent = await t.daemon.admin("/api/feedback", {
      method: "POST",
      body: JSON.stringify({
        reference: "f/1",
        classificationsToRemove: ["INSULT"],
        notes: "banter between friends",
        confidence: "HIGH"
      })
    })
    expect(sent.status).toBe(200)
    expect(sent.body).toMatchObject({ reference: "f/1", version: 1, endpoint: "/feedback/v1/text" })
    const received = await Effect.runPromise(t.sandbox.feedback)
    expect(received.length).toBe(1)
    const raw = (received[0] as { rawBody: string }).rawBody
    expect(raw).toContain(`"analyzeRequest":${stored}`)
    const decision = await t.daemon.admin("/api/decisions/f%2F1")
    expect(decision.body.feedback).toMatchObject([{ id: sent.body.id, origin: "manual", status: "sent" }])

    // Refused with a clear reason: an item never analysed, a feedback with none of the three inputs.
    const unknown = await t.daemon.admin("/api/feedback", {
      method: "POST",
      body: JSON.stringify({ reference: "nope", notes: "x" })
    })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.message).toContain("never analysed")
    const empty = await t.daemon.admin("/api/feedback", {
      method: "POST",
      body: JSON.stringify({ reference: "f/1", confidence: "LOW" })
    })
    expect(empty.status).toBe(400)
    expect(empty.body.error).toMatchObject({ code: "BAD_REQUEST" })
    expect(empty.body.error.message).toContain("classificationsToAdd")
    expect((await Effect.runPromise(t.sandbox.feedback)).length).toBe(1)
  })

  it("follows a moderator's reversal (autoFeedback) and a member's report, once each", async () => {
    const t = await setup({ autoFeedback: true })
    cleanups.push(() => t.sandbox.close())
    t.platform.publish({ kind: "upsert", reference: "m/1", text: "You are an idiot" })
    t.platform.publish({ kind: "upsert", reference: "m/2", text: "Nice weather today" })
    await waitFor(() => t.lines().length === 2, 15_000, "the verdicts")
    t.platform.publish({ kind: "reversal", reference: "m/1", action: "holdForReview" })
    t.platform.publish({ kind: "reversal", reference: "m/1", action: "holdForReview" })
    t.platform.publish({ kind: "report", reference: "m/2", note: "this is a coded slur" })
    await waitFor(async () => (await Effect.runPromise(t.sandbox.feedback)).length >= 2, 15_000, "feedback")
    await new Promise((r) => setTimeout(r, 500))
    const bodies = (await Effect.runPromise(t.sandbox.feedback)).map((f) =>
      JSON.parse((f as { rawBody: string }).rawBody)
    )
    expect(bodies.length).toBe(2)
    expect(bodies.find((b) => b.confidence === "HIGH")).toMatchObject({ classificationsToRemove: ["INSULT"] })
    expect(bodies.find((b) => b.confidence === "LOW")).toMatchObject({ notes: "this is a coded slur" })
  })
})

describe("failure modes while the API is down", () => {
  const downThenUp = async (mode: FailurePolicy["mode"]) => {
    const probe = await Sandbox.startPromise()
    const port = probe.port
    await probe.close()
    const t = await setup({
      failure: { mode, afterMillis: 300, action: mode === "reject" ? "holdForReview" : undefined },
      sandboxPort: port,
      apiRetries: 2
    })
    await t.sandbox.close() // the API goes down
    t.platform.publish({ kind: "upsert", reference: "x/1", text: "[[THREAT]] I know where you live" })
    t.platform.publish({ kind: "upsert", reference: "x/2", text: "Have a nice day" })
    return { ...t, port }
  }

  it("hold: items wait and are analysed once the API is back", async () => {
    const t = await downThenUp("hold")
    await new Promise((r) => setTimeout(r, 1500))
    expect(t.lines()).toEqual([])
    const back = await Sandbox.startPromise({ port: t.port })
    cleanups.push(() => back.close())
    await waitFor(() => t.lines().length === 2, 20_000, "verdicts after the API is back")
    expect(t.lines().every((l) => l.status === "analysed")).toBe(true)
  }, 60_000)

  it("allow: items are recorded unanalysed, nothing is acted on, and the real verdict follows", async () => {
    const t = await downThenUp("allow")
    await waitFor(() => t.lines().length === 2, 20_000, "unanalysed records")
    expect(t.lines().every((l) => l.status === "unanalysed" && l.version === 1)).toBe(true)
    expect(t.actions()).toEqual([])
    const back = await Sandbox.startPromise({ port: t.port })
    cleanups.push(() => back.close())
    await waitFor(() => t.lines().filter((l) => l.status === "analysed").length === 2, 30_000, "real verdicts")
    expect(
      t
        .lines()
        .filter((l) => l.status === "analysed")
        .every((l) => l.version === 2)
    ).toBe(true)
    await waitFor(() => t.platform.executed.length === 2, 10_000, "actions of the real verdict")
    expect(t.platform.executed.map((a) => a.kind).sort()).toEqual(["hide", "timeoutAuthor"])
  }, 60_000)

  it("reject: the fail-closed action is applied, and the real verdict is recorded when the API is back", async () => {
    const t = await downThenUp("reject")
    await waitFor(() => t.platform.executed.length === 2, 20_000, "fail-closed actions")
    expect(t.platform.executed.map((a) => `${a.reference}:${a.kind}`).sort()).toEqual([
      "x/1:holdForReview",
      "x/2:holdForReview"
    ])
    const back = await Sandbox.startPromise({ port: t.port })
    cleanups.push(() => back.close())
    await waitFor(() => t.lines().filter((l) => l.status === "analysed").length === 2, 30_000, "real verdicts")
  }, 60_000)
})
