/**
 * Policies and actions: rule matching, actions on the platform after the verdict, dry runs, retries,
 * feedback by reference and from moderators, and the failure modes while the API is down (on the
 * TestClock: their delays, the failure mode's and the 5 s re-analysis sweep's, pass without waiting).
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { assert, it } from "@effect/vitest"
import { Clock, Context, Effect } from "effect"
import { TestClock } from "effect/testing"
import { afterEach, describe, expect } from "vitest"
import type { Rule } from "../src/domain/Rule.ts"
import * as Daemon from "../src/Daemon.ts"
import { SourceStatus } from "../src/engine/SourceStatus.ts"
import * as Policy from "../src/domain/Rule.ts"
import type { FailurePolicy } from "../src/domain/SourceSettings.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { jsonlRecords, jsonlSink } from "./support/FeedPipeline.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import * as StateDb from "./support/StateDb.ts"
import { platformSource, startPlatform } from "./support/TestPlatform.ts"
import { adjustTo, buildOnTestClock, atWallTime, passUntil } from "./support/TestTime.ts"

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

/** The platform actions recorded in the state file, by reference. */
const actionsIn = (state: string) =>
  StateDb.query<{ reference: string; kind: string; status: string; attempts: number }>(
    state,
    "SELECT * FROM warden_actions ORDER BY reference, seq"
  )

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const setup = async (options: { readonly dryRun?: boolean; readonly autoFeedback?: boolean }) => {
  const sandbox = await Sandbox.startPromise({ requestLogSize: 5000 })
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
      retry: { maxAttempts: 3, baseDelay: "10 millis", maxDelay: "50 millis" }
    },
    sources: [
      platformSource(platform.url, {
        id: "platform",
        dryRun: options.dryRun ?? false,
        rules,
        autoFeedback: options.autoFeedback ?? false
      })
    ],
    ...jsonlSink(out),
    pipeline: { pauseRetry: "200 millis", maxWait: "20 millis" }
  }
  const daemon = await startDaemonInProcess(spec)
  cleanups.push(daemon.close)
  const lines = () => jsonlRecords(out)
  const actions = () => actionsIn(state)
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

describe("failure modes while the API is down, on the TestClock", () => {
  const AFTER_MILLIS = 5_000

  /**
   * The daemon on the TestClock (no admin server) with the platform source and the rules above, on a
   * sandbox answering 503 to every call (the API down), the failure mode `mode` after 5 s; x/1 (a
   * threat) and x/2 published. Answers once the API has been found down (`downAt`, at most one 20 ms
   * step after the first failed call).
   */
  const downOnTestClock = (mode: FailurePolicy["mode"], afterMillis = AFTER_MILLIS) =>
    Effect.gen(function* () {
      yield* atWallTime
      const sandbox = yield* Sandbox.start({ faults: { transient: 1 } })
      const platform = yield* Effect.acquireRelease(Effect.promise(startPlatform), (p) => Effect.promise(p.close))
      const dir = mkdtempSync(join(tmpdir(), "warden-policy-clock-"))
      const out = join(dir, "out.jsonl")
      const context = yield* buildOnTestClock(
        Daemon.layer({
          state: { _tag: "sqlite", filename: join(dir, "state.db") },
          api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url }, retry: { maxAttempts: 1 } },
          sources: [
            platformSource(platform.url, {
              id: "platform",
              rules,
              failure: { mode, afterMillis, action: mode === "reject" ? "holdForReview" : undefined }
            })
          ],
          ...jsonlSink(out),
          admin: undefined,
          pipeline: { maxWait: "20 millis" }
        })
      )
      platform.publish({ kind: "upsert", reference: "x/1", text: "[[THREAT]] I know where you live" })
      platform.publish({ kind: "upsert", reference: "x/2", text: "Have a nice day" })
      const status = Context.get(context, SourceStatus)
      const state = Effect.map(status.all, (all) => all.get("platform")?.state)
      yield* passUntil(
        Effect.map(state, (s) => s === "api-unavailable"),
        "the API found down"
      )
      const downAt = yield* Clock.currentTimeMillis
      const lines = () => jsonlRecords(out)
      const analysed = () => lines().filter((l) => l.status === "analysed")
      const stateFile = join(dir, "state.db")
      /** Item versions recorded in the state file (analysed or not): what the sink and actions follow. */
      const recorded = () => StateDb.query(stateFile, "SELECT reference FROM warden_items").length
      /** Moves the clock to just before the failure mode's delay has run out: nothing is recorded yet. */
      const justBeforeTheDelay = Effect.andThen(
        adjustTo(downAt + afterMillis - 100),
        Effect.sync(() => assert.strictEqual(recorded(), 0))
      )
      return {
        sandbox,
        platform,
        lines,
        analysed,
        state,
        recorded,
        justBeforeTheDelay,
        actions: () => actionsIn(stateFile)
      }
    })

  /** A test on the daemon {@link downOnTestClock} builds for `mode`, in the test's scope. */
  const whileDown =
    <E>(
      mode: FailurePolicy["mode"],
      body: (t: Effect.Success<ReturnType<typeof downOnTestClock>>) => Effect.Effect<void, E>,
      afterMillis?: number
    ) =>
    () =>
      Effect.scoped(Effect.flatMap(downOnTestClock(mode, afterMillis), body))

  /** Lets time pass, a second at a time, until `check` holds. */
  const secondsUntil = (check: () => boolean, what: string) => passUntil(Effect.sync(check), what, "1 second")

  it.effect(
    "hold: items wait, past the failure mode's delay too, and are analysed once the API is back",
    whileDown("hold", (t) =>
      Effect.gen(function* () {
        yield* TestClock.adjust("1 minute")
        assert.strictEqual(t.recorded(), 0)
        yield* t.sandbox.setFaults({})
        yield* secondsUntil(() => t.lines().length === 2, "verdicts after the API is back")
        assert.isTrue(t.lines().every((l) => l.status === "analysed"))
      })
    )
  )

  it.effect(
    "allow: after the delay, items are recorded unanalysed, nothing is acted on, and the real verdict follows",
    whileDown("allow", (t) =>
      Effect.gen(function* () {
        yield* t.justBeforeTheDelay
        yield* secondsUntil(() => t.lines().length === 2, "unanalysed records")
        assert.isTrue(t.lines().every((l) => l.status === "unanalysed" && l.version === 1))
        assert.deepStrictEqual(t.actions(), [])
        yield* t.sandbox.setFaults({})
        yield* secondsUntil(() => t.analysed().length === 2, "real verdicts")
        assert.isTrue(t.analysed().every((l) => l.version === 2))
        yield* secondsUntil(() => t.platform.executed.length === 2, "actions of the real verdict")
        assert.deepStrictEqual(t.platform.executed.map((a) => a.kind).sort(), ["hide", "timeoutAuthor"])
      })
    )
  )

  it.effect(
    "reject: after the delay, the fail-closed action is applied, and the real verdict is recorded when the API is back",
    whileDown("reject", (t) =>
      Effect.gen(function* () {
        yield* t.justBeforeTheDelay
        assert.deepStrictEqual(t.actions(), [])
        yield* secondsUntil(() => t.platform.executed.length === 2, "fail-closed actions")
        assert.deepStrictEqual(t.platform.executed.map((a) => `${a.reference}:${a.kind}`).sort(), [
          "x/1:holdForReview",
          "x/2:holdForReview"
        ])
        yield* t.sandbox.setFaults({})
        yield* secondsUntil(() => t.analysed().length === 2, "real verdicts")
      })
    )
  )

  it.effect(
    "reject after 2 minutes: a lone batch whose hand-back backoff grew past the 10 s between tries still gets the fail-closed action",
    whileDown(
      "reject",
      (t) =>
        Effect.gen(function* () {
          yield* t.justBeforeTheDelay
          // The batch's backoff is 30 s by now: each of its attempts used to come 10 s after the last try of
          // the API, so each was a try again, and the failure mode never applied.
          yield* secondsUntil(() => t.platform.executed.length === 2, "fail-closed actions")
          assert.deepStrictEqual(t.platform.executed.map((a) => a.kind).sort(), ["holdForReview", "holdForReview"])
        }),
      120_000
    )
  )
})
