/**
 * `/readyz`: ready means "can make progress". One bad source is listed but does not make the daemon
 * unready; the API failing (refused key, unavailable, answering without verdicts) does. How long an
 * upstream error stays listed (2 minutes after the last one) is tested on the TestClock.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, it as effectIt } from "@effect/vitest"
import { Connector, type SourceEvent } from "@warden/connector"
import { Sandbox } from "@warden/sandbox"
import { Effect, Layer, Queue, Redacted, Schema, Stream } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Readiness from "../src/admin/Readiness.ts"
import type { State } from "../src/engine/SourceStatus.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { rssSource } from "./support/FeedPipeline.ts"
import { daemonOnTestClock, type LoggedLine, startDaemonInProcess } from "./support/InProcess.ts"
import { listen } from "./support/LoopbackServer.ts"
import { adminStatement, freshDatabase } from "./support/Postgres.ts"
import { platformSource, sourceSettings, startPlatform } from "./support/TestPlatform.ts"
import { adjustTo, eventually, passUntil } from "./support/TestTime.ts"

const now = 1_000_000
const state = (s: State["state"], reason?: string): State => ({
  state: s,
  since: now - 1000,
  ...(reason === undefined ? {} : { reason }),
  ...(s === "upstream-error" ? { lastErrorAt: now - 1000 } : {})
})
const report = (inputs: Partial<Readiness.Inputs>) =>
  Readiness.report({
    storeProblem: undefined,
    states: new Map(),
    unrecognised: new Map(),
    lastVerdicts: new Map(),
    now,
    ...inputs
  })

describe("the readiness report", () => {
  it("one source's upstream failing is listed without making the daemon unready", () => {
    const r = report({
      states: new Map([
        ["good", state("running")],
        ["bad", state("upstream-error", "GET http://feed answered 404")]
      ]),
      lastVerdicts: new Map([["good", now - 10]])
    })
    expect(r.ready).toBe(true)
    expect(r.problems).toEqual(["source bad upstream error: GET http://feed answered 404"])
    expect(r.sources.good).toMatchObject({ state: "running", api: "ok" })
  })

  it("the API failing for every source that uses it makes the daemon unready", () => {
    const r = report({
      states: new Map([
        ["a", state("api-unavailable", "TRANSIENT_ERROR (503 after 5 attempts)")],
        ["b", state("running")]
      ])
    })
    expect(r.ready).toBe(false)
    expect(r.problems).toEqual([
      "the API fails for 1 source and works for none",
      "source a waiting for the API: TRANSIENT_ERROR (503 after 5 attempts)"
    ])
  })

  it("a paused source's reason is said once, without a repeated 'paused:' prefix", () => {
    const r = report({ states: new Map([["good", state("paused", "AUTHENTICATION_ERROR (unknown key)")]]) })
    expect(r.problems[1]).toBe("source good paused: AUTHENTICATION_ERROR (unknown key)")
  })

  it("answers without a verdict since the last verdict count as the API failing", () => {
    const unrecognised = new Map([
      ["a", { count: 3, lastAt: now - 5, lastShape: "{foo}", endpoint: "/analyze/v1/text" }]
    ])
    const failing = report({
      states: new Map([["a", state("running")]]),
      unrecognised,
      lastVerdicts: new Map([["a", now - 50]])
    })
    expect(failing.ready).toBe(false)
    expect(failing.sources.a?.api).toBe("failing")
    const recovered = report({
      states: new Map([["a", state("running")]]),
      unrecognised,
      lastVerdicts: new Map([["a", now]])
    })
    expect(recovered.ready).toBe(true)
    expect(recovered.problems[0]).toContain("3 answers without a verdict")
  })

  it("a state store that refuses writes makes the daemon unready", () => {
    expect(report({ storeProblem: "disk I/O error" })).toMatchObject({
      ready: false,
      problems: ["state store not writable: disk I/O error"]
    })
  })
})

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A server answering every request with `status`. */
const answering = async (status: number) => {
  const server = await listen((req, res) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { code: "TRANSIENT_ERROR", message: "down" } }))
    })
  })
  cleanups.push(server.close)
  return server.url
}

const base = (dir: string) => ({
  state: { _tag: "sqlite" as const, filename: join(dir, "state.db") },
  sinks: Layer.succeed(SinkList, []),
  sinkNames: [],
  pipeline: { pauseRetry: "300 millis" as const }
})

describe("/readyz of a running daemon", () => {
  it("one feed answering 404 is listed; the daemon stays ready while the other source makes progress", async () => {
    const sandbox = await Sandbox.startPromise()
    cleanups.push(() => sandbox.close())
    const platform = await startPlatform()
    cleanups.push(platform.close)
    const missing = `${await answering(404)}/feed.xml`
    const dir = mkdtempSync(join(tmpdir(), "warden-ready-"))
    const daemon = await startDaemonInProcess({
      ...base(dir),
      api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
      sources: [
        platformSource(platform.url, { id: "good" }),
        rssSource({ feeds: [missing], pollInterval: "200 millis" }, { id: "bad" })
      ]
    })
    cleanups.push(daemon.close)
    platform.publish({ kind: "upsert", reference: "p/1", text: "Thank you, lovely article" })
    await waitFor(
      async () => JSON.stringify((await daemon.admin("/readyz")).body.problems ?? []).includes("source bad"),
      20_000,
      "the bad feed listed"
    )
    await waitFor(async () => (await daemon.admin("/api/decisions")).body.decisions?.length === 1, 20_000, "a verdict")
    const ready = await daemon.admin("/readyz")
    expect(ready.status).toBe(200)
    expect(ready.body.ready).toBe(true)
    expect(ready.body.sources.bad.state).toBe("upstream-error")
  }, 40_000)

  it("an API answering 500 to everything makes the daemon unready, with the reason", async () => {
    const api = await answering(500)
    const platform = await startPlatform()
    cleanups.push(platform.close)
    const dir = mkdtempSync(join(tmpdir(), "warden-ready-"))
    const daemon = await startDaemonInProcess({
      ...base(dir),
      api: { apiKey: "k", baseUrls: { global: api }, retry: { maxAttempts: 1 } },
      sources: [platformSource(platform.url, { id: "good" })]
    })
    cleanups.push(daemon.close)
    platform.publish({ kind: "upsert", reference: "p/1", text: "hello" })
    await waitFor(async () => (await daemon.admin("/readyz")).status === 503, 20_000, "readiness to fail")
    const ready = await daemon.admin("/readyz")
    expect(ready.body.problems[0]).toBe("the API fails for 1 source and works for none")
    expect(ready.body.problems[1]).toMatch(/^source good waiting for the API: /)
    expect(ready.body.problems[1]).not.toMatch(/paused: .*paused:|API unavailable for source/)
  }, 40_000)

  it("a runner that lost its PostgreSQL database answers 503 with the reason, keeps running, and is ready again once the database is back; the outage is one line when it starts and one when it ends", async () => {
    const sandbox = await Sandbox.startPromise()
    cleanups.push(() => sandbox.close())
    const platform = await startPlatform()
    cleanups.push(platform.close)
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const dir = mkdtempSync(join(tmpdir(), "warden-ready-"))
    const logs: Array<LoggedLine> = []
    const daemon = await startDaemonInProcess(
      {
        ...base(dir),
        state: { _tag: "postgres", url: Redacted.make(db.url) },
        api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
        sources: [platformSource(platform.url, { id: "good" })]
      },
      { logs }
    )
    cleanups.push(daemon.close)
    const decisions = async () => (await daemon.admin("/api/decisions")).body.decisions?.length ?? 0
    platform.publish({ kind: "upsert", reference: "p/1", text: "Thank you, lovely article" })
    await waitFor(async () => (await decisions()) === 1, 30_000, "a verdict")
    expect((await daemon.admin("/readyz")).status).toBe(200)
    const mark = logs.length

    // The database goes away under the running daemon: no new connection, the open ones cut.
    await adminStatement(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS false`)
    await adminStatement(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${db.name}'`)
    // An item meanwhile: its batch cannot be recorded, and is retried until it is.
    platform.publish({ kind: "upsert", reference: "p/2", text: "Another kind comment" })
    await waitFor(async () => (await daemon.admin("/readyz")).status === 503, 30_000, "readiness to fail")
    const lost = await daemon.admin("/readyz")
    expect(lost.body.ready).toBe(false)
    expect(lost.body.problems[0]).toMatch(/^state store not writable: state\.postgres: .+ \(\w+\)$/)
    // Some seconds of retries: the cluster's polls, the batch, the sink worker, the status report.
    await new Promise((r) => setTimeout(r, 5_000))

    await adminStatement(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS true`)
    await waitFor(async () => (await daemon.admin("/readyz")).status === 200, 60_000, "readiness back")
    // Still the same process, still moderating: the item of the outage, and one after it.
    platform.publish({ kind: "upsert", reference: "p/3", text: "A third kind comment" })
    await waitFor(async () => (await decisions()) === 3, 60_000, "the verdicts of the items of and after the outage")
    // The end line waits 10 s without a failure.
    const named = () => logs.slice(mark).filter((l) => l.annotations.setting === "state.postgres")
    await waitFor(() => named().length >= 2, 30_000, "the outage's end line")
    expect(named().map((l) => l.level)).toEqual(["Error", "Info"])
    expect(named()[0]!.message).toMatch(/^state\.postgres: .+; the state store does not take writes/)
    expect(named()[1]!.message).toMatch(/^state\.postgres: the state store takes writes again, after [\d.]+ s/)
    // Nothing else about it: before, ~40 lines an outage, each with its stack (issue 35).
    const others = logs
      .slice(mark)
      .filter((l) => (l.level === "Warn" || l.level === "Error") && l.annotations.setting === undefined)
    expect(others.map((l) => l.message)).toEqual([])
  }, 180_000)
})

/** A source whose connector reports the upstream errors the test offers to `errors`, and nothing else. */
const erroring = (errors: Queue.Queue<SourceEvent.SourceEvent>) =>
  Connector.make({
    type: "erroring",
    configSchema: Schema.Struct({}),
    capabilities: { actions: [], duplicates: "possible", contentTypes: ["text"] },
    make: () => Effect.succeed({ events: () => Stream.fromQueue(errors) })
  })

const upstreamError = (message: string, attempt: number): SourceEvent.SourceEvent => ({
  kind: "error",
  source: "flaky",
  reason: "http",
  message,
  attempt,
  retryInMillis: 60_000
})

describe("an upstream error in /readyz, on the TestClock", () => {
  const TWO_MINUTES = 120_000
  effectIt.effect(
    "is listed until 2 minutes after the last one, without making the daemon unready, then no longer",
    () =>
      Effect.gen(function* () {
        const errors = yield* Queue.unbounded<SourceEvent.SourceEvent>()
        // The source status and /readyz read the time from the Clock: the TestClock here.
        const daemon = yield* daemonOnTestClock({
          sinks: Layer.succeed(SinkList, []),
          sinkNames: [],
          api: { apiKey: "sandbox-standard-key", baseUrls: { global: "http://127.0.0.1:9" } },
          sources: [{ settings: sourceSettings("flaky", "erroring"), connector: erroring(errors), config: {} }]
        })
        const readyz = Effect.map(daemon.get("/readyz"), (r) => ({
          status: r.status,
          body: JSON.parse(r.body) as Readiness.Report
        }))
        const listed = (message: string) =>
          Effect.map(readyz, (r) => r.body.problems.includes(`source flaky upstream error: ${message}`))
        const assertListed = (message: string) =>
          Effect.gen(function* () {
            const r = yield* readyz
            assert.strictEqual(r.status, 200)
            assert.isTrue(r.body.ready)
            assert.deepStrictEqual(r.body.problems, [`source flaky upstream error: ${message}`])
          })

        yield* Queue.offer(errors, upstreamError("GET http://feed answered 503", 1))
        // The source starts once the daemon's singletons are assigned (after the layer is built).
        yield* passUntil(listed("GET http://feed answered 503"), "the first error listed")
        const firstAt = Date.parse((yield* readyz).body.sources.flaky!.since)
        yield* assertListed("GET http://feed answered 503")

        // A second error 90 s later: the 2 minutes run from it.
        yield* adjustTo(firstAt + 90_000)
        yield* Queue.offer(errors, upstreamError("GET http://feed answered 502", 2))
        yield* eventually(listed("GET http://feed answered 502"), "the second error listed")
        const secondAt = firstAt + 90_000
        yield* adjustTo(firstAt + TWO_MINUTES)
        yield* assertListed("GET http://feed answered 502")
        yield* adjustTo(secondAt + TWO_MINUTES - 1)
        yield* assertListed("GET http://feed answered 502")

        yield* adjustTo(secondAt + TWO_MINUTES)
        const after = yield* readyz
        assert.strictEqual(after.status, 200)
        assert.isTrue(after.body.ready)
        assert.deepStrictEqual(after.body.problems, [])
        // The state still says what the source last reported; only the problem line is gone.
        assert.strictEqual(after.body.sources.flaky?.state, "upstream-error")
        assert.strictEqual(after.body.sources.flaky?.problem, undefined)
      }).pipe(Effect.scoped)
  )
})
