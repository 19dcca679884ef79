/**
 * The admin API: bearer token, health and readiness, Prometheus metrics, decisions queries. How often
 * /metrics reads the state tables' sizes (at most once a minute) is tested on the TestClock.
 */
import { assert, it as effectIt } from "@effect/vitest"
import { Sandbox } from "@warden/sandbox"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SinkList } from "../src/sinks/SinkList.ts"
import { DecisionStore } from "../src/state/DecisionStore.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { daemonOnTestClock } from "./support/InProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"
import { platformSource, startPlatform, TestPlatformConfig } from "./support/TestPlatform.ts"
import { adjustTo, passUntil } from "./support/TestTime.ts"

describe("the admin API", () => {
  let started: Awaited<ReturnType<typeof startSandboxDaemon>>
  let daemon: typeof started.daemon

  beforeAll(async () => {
    started = await startSandboxDaemon({
      sources: ([url]) => [
        platformSource(url!, {
          id: "plat",
          rules: [
            // A rule without a platform action (it only routes): still the rule that matched.
            { name: "flag-threats", when: { classifications: { anyOf: ["THREAT"] } }, actions: [], sinks: [] },
            { name: "hide-insults", when: { classifications: { anyOf: ["INSULT"] } }, actions: [{ kind: "hide" }] }
          ]
        })
      ]
    })
    daemon = started.daemon
    const platform = started.platforms[0]!
    platform.publish({ kind: "upsert", reference: "a/1", text: "[[THREAT]] I know where you live" })
    platform.publish({ kind: "upsert", reference: "a/2", text: "Thank you, lovely article" })
    platform.publish({ kind: "upsert", reference: "a/3", text: "You are an idiot" })
    await waitFor(async () => (await daemon.admin("/api/decisions")).body.decisions?.length === 3, 20_000, "decisions")
  })
  afterAll(() => started.close())

  it("answers /healthz without a token and everything else only with the right bearer token", async () => {
    expect((await fetch(`${daemon.adminUrl}/healthz`)).status).toBe(200)
    expect((await fetch(`${daemon.adminUrl}/readyz`)).status).toBe(401)
    const wrong = await fetch(`${daemon.adminUrl}/api/decisions`, { headers: { authorization: "Bearer nope" } })
    expect(wrong.status).toBe(401)
    expect((await daemon.admin("/readyz")).status).toBe(200)
  })

  it("serves Prometheus metrics of the pipeline and the API client", async () => {
    const res = await fetch(`${daemon.adminUrl}/metrics`, { headers: { authorization: "Bearer test-admin-token" } })
    const text = await res.text()
    expect(res.headers.get("content-type")).toContain("text/plain")
    expect(text).toMatch(/warden_items_in_total\{[^}]*source="plat"[^}]*\} 3/)
    expect(text).toMatch(/warden_items_out_total\{[^}]*status="analysed"[^}]*\} 3/)
    expect(text).toContain("warden_verdicts_total")
    expect(text).toMatch(/warden_api_\w+/)
    expect(text).not.toContain("sandbox-standard-key")
  })

  it("shows the limiter's view per endpoint at /api/quota (unlimited: no configured rate, no 429s) and table sizes in /metrics", async () => {
    const quota = await daemon.admin("/api/quota")
    expect(quota.status).toBe(200)
    expect(quota.body.endpoints).toContainEqual({
      endpoint: "analyzeText",
      configuredRate: null,
      learntRate: null,
      currentRate: null,
      burst: null,
      recent429s: 0
    })
    const metrics = await fetch(`${daemon.adminUrl}/metrics`, { headers: { authorization: "Bearer test-admin-token" } })
    const text = await metrics.text()
    expect(text).toMatch(/warden_state_table_rows\{[^}]*table="warden_items"[^}]*\} 3/)
    expect(text).toMatch(/warden_state_table_bytes\{[^}]*table="cluster_messages"/)
  })

  it("filters decisions and shows one item with its versions and the request sent", async () => {
    const threats = (await daemon.admin("/api/decisions?classification=THREAT")).body.decisions
    expect(threats.map((d: { reference: string }) => d.reference)).toEqual(["a/1"])
    const removed = (await daemon.admin("/api/decisions?action=REMOVE")).body.decisions
    expect(removed.map((d: { reference: string }) => d.reference).sort()).toEqual(["a/1", "a/3"])
    expect((await daemon.admin("/api/decisions?limit=1")).body.decisions.length).toBe(1)
    expect((await daemon.admin(`/api/decisions?since=${Date.now() + 60_000}`)).body.decisions).toEqual([])
    const one = await daemon.admin("/api/decisions/a%2F2")
    expect(one.status).toBe(200)
    expect(one.body.latest).toMatchObject({
      reference: "a/2",
      version: 1,
      status: "analysed",
      endpoint: "/analyze/v1/text"
    })
    // the request sent as JSON, times as ISO strings
    expect(one.body.latest.request).toMatchObject({ text: "Thank you, lovely article", reference: "a/2" })
    expect(one.body.latest.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    // a filter value that cannot match is refused, naming the values allowed (was: 200 and an empty list)
    const lower = await daemon.admin("/api/decisions?type=hateful")
    expect(lower.status).toBe(400)
    expect(lower.body.error).toMatchObject({ code: "BAD_REQUEST", parameter: "type" })
    expect(lower.body.error.message).toContain("HATEFUL, SUPPORTIVE, NEUTRAL")
    for (const bad of ["severity=HIGHEST", "actionStatus=ok", "rule=nope"])
      expect((await daemon.admin(`/api/decisions?${bad}`)).status).toBe(400)
    expect((await daemon.admin("/api/decisions/unknown")).status).toBe(404)
  })

  it("names the rule that matched, with or without platform actions, and lists each action's outcome", async () => {
    await waitFor(
      async () => started.platforms[0]!.executed.some((a) => a.kind === "hide" && a.reference === "a/3"),
      20_000,
      "the hide of a/3"
    )
    await waitFor(
      async () =>
        (await daemon.admin("/api/decisions")).body.decisions.some(
          (d: { actions: Array<{ status: string }> }) => d.actions[0]?.status === "done"
        ),
      20_000,
      "the hide recorded done"
    )
    const rows = (await daemon.admin("/api/decisions")).body.decisions as Array<Record<string, unknown>>
    const byReference = Object.fromEntries(rows.map((d) => [d.reference, { rule: d.rule, actions: d.actions }]))
    expect(byReference).toEqual({
      "a/1": { rule: "flag-threats", actions: [] },
      "a/2": { rule: null, actions: [] },
      "a/3": { rule: "hide-insults", actions: [{ rule: "hide-insults", kind: "hide", status: "done" }] }
    })
    // The decision page's answer names it too, though the rule took no action on a/1.
    const one = await daemon.admin("/api/decisions/a%2F1")
    expect(one.body.latest.rule).toBe("flag-threats")
    expect(one.body.actions).toEqual([])
  })

  it("serves the OpenAPI document of its HttpApi declaration at /api/openapi.json", async () => {
    const res = await fetch(`${daemon.adminUrl}/api/openapi.json`)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as any
    expect(doc.openapi).toBe("3.1.0")
    // The routes the console and operators call, with the statuses each can answer.
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/decisions",
        "/api/decisions/{reference}",
        "/api/feedback",
        "/api/pipeline",
        "/readyz"
      ])
    )
    const one = doc.paths["/api/decisions/{reference}"].get
    expect(Object.keys(one.responses)).toEqual(expect.arrayContaining(["200", "401", "404", "409"]))
    expect(one.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["reference", "source"]))
    expect(doc.paths["/api/feedback"].post.requestBody.content["application/json"]).toBeDefined()
    // Bearer token or the console's session cookie; /healthz needs neither.
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "Bearer" })
    expect(one.security).toEqual([{ bearer: [] }, { session: [] }])
    expect(doc.paths["/healthz"].get.security).toEqual([])
    // The query parameters it documents are the ones the route takes: another one is refused, named.
    const list = doc.paths["/api/decisions"].get.parameters.map((p: { name: string }) => p.name)
    expect(list).toEqual(expect.arrayContaining(["source", "type", "q", "limit", "cursor"]))
    expect(list).not.toContain("extra")
    const undeclared = await daemon.admin("/api/decisions?extra=1")
    expect(undeclared.status).toBe(400)
    expect(undeclared.body.error.parameter).toBe("extra")
  })

  it("GET /api/cluster shows the one runner of a SQLite daemon, holding the source's singleton", async () => {
    const res = await daemon.admin("/api/cluster")
    expect(res.status).toBe(200)
    expect(res.body.mode).toBe("single")
    expect(res.body.runners).toHaveLength(1)
    expect(res.body.runners[0].singletons).toContain("source:plat")
    expect((await fetch(`${daemon.adminUrl}/api/cluster`)).status).toBe(401)
  })

  it("Restore / Remove refuse what cannot be done, naming why, and what is not a request", async () => {
    const post = (reference: string, body: unknown) =>
      daemon.admin(`/api/decisions/${encodeURIComponent(reference)}/moderate`, {
        method: "POST",
        body: JSON.stringify(body)
      })
    // Nothing of Warden's to reverse on a2 (no rule matched it): Restore is refused, Remove offered.
    const detail = await daemon.admin("/api/decisions/a%2F2")
    expect(detail.body.platformActions).toEqual(["remove"])
    const restore = await post("a/2", { action: "restore" })
    expect(restore.status).toBe(409)
    expect(restore.body.error).toMatchObject({ code: "CANNOT_ACT" })
    expect(restore.body.error.message).toContain("nothing to restore")
    const bad = await post("a/2", { action: "undo" })
    expect(bad.status).toBe(400)
    expect(bad.body.error.parameter).toBe("action")
    expect((await post("nope", { action: "remove" })).status).toBe(404)
  })
})

describe("/api/quota with a configured quota", () => {
  it("shows the configured rate, the rate enforced after the margin and the burst", async () => {
    const started = await startSandboxDaemon({
      sources: ([url]) => [platformSource(url!, { id: "plat" })],
      quotas: { endpoints: { analyzeText: { requestsPerSecond: 10, burst: 4 } } }
    })
    try {
      const quota = await started.daemon.admin("/api/quota")
      expect(quota.status).toBe(200)
      // The margin (2%) takes 10/s to 9.8/s and one token from the burst of 4: a call the server counts
      // a little late must not find its bucket empty.
      expect(quota.body.endpoints).toContainEqual({
        endpoint: "analyzeText",
        configuredRate: 10,
        learntRate: null,
        currentRate: 9.8,
        burst: 3,
        recent429s: 0
      })
    } finally {
      await started.close()
    }
  })
})

describe("/metrics on the TestClock", () => {
  /**
   * The daemon on the TestClock with one platform source `source`; `decided(n)` holds once n items have
   * their verdict, `gauge(name, label)` reads a gauge from /metrics (undefined when it is not there).
   * /metrics reads the time from the Clock: the TestClock here.
   */
  const metricsOnTestClock = (source: string, options: { readonly progress?: boolean } = {}) =>
    Effect.gen(function* () {
      const sandbox = yield* Sandbox.start()
      const platform = yield* Effect.acquireRelease(Effect.promise(startPlatform), (p) => Effect.promise(p.close))
      const spec = platformSource(platform.url, { id: source })
      const daemon = yield* daemonOnTestClock({
        api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
        sources: [
          options.progress === true
            ? {
                ...spec,
                config: Schema.decodeUnknownSync(TestPlatformConfig)({
                  url: platform.url,
                  pollMillis: 50,
                  progress: true
                })
              }
            : spec
        ],
        sinks: Layer.succeed(SinkList, []),
        sinkNames: []
      })
      const decisions = Context.get(daemon.context, DecisionStore)
      return {
        sandbox,
        platform,
        decided: (n: number) => Effect.map(decisions.decisions({ limit: 10 }), (rows) => rows.length === n),
        gauge: (name: string, label: string) =>
          Effect.map(daemon.get("/metrics"), ({ body }) => {
            const match = new RegExp(`^${name}\\{[^}]*${label}[^}]*\\} (\\S+)$`, "m").exec(body)
            return match === null ? undefined : Number(match[1])
          })
      }
    })

  /**
   * A test on {@link metricsOnTestClock}`(source)` once its platform has published `${source}/1`; `read`
   * answers the gauge `name` with `label`.
   */
  const withGauge =
    <E>(
      source: string,
      [name, label]: readonly [string, string],
      body: (
        t: Effect.Success<ReturnType<typeof metricsOnTestClock>> & { readonly read: Effect.Effect<number | undefined> }
      ) => Effect.Effect<void, E>,
      options: { readonly progress?: boolean } = {}
    ) =>
    () =>
      Effect.scoped(
        Effect.flatMap(metricsOnTestClock(source, options), (t) => {
          t.platform.publish({ kind: "upsert", reference: `${source}/1`, text: "Thank you, lovely article" })
          return body({ ...t, read: t.gauge(name, label) })
        })
      )

  effectIt.effect(
    "the state tables' sizes are read at the first scrape, then at most once a minute: rows added meanwhile show a minute after the last read",
    withGauge("s", ["warden_state_table_rows", 'table="warden_items"'], (t) =>
      Effect.gen(function* () {
        // The source starts once the daemon's singletons are assigned, then polls its platform every 50 ms.
        yield* passUntil(t.decided(1), "s/1's verdict")
        const firstRead = yield* Clock.currentTimeMillis
        assert.strictEqual(yield* t.read, 1)
        t.platform.publish({ kind: "upsert", reference: "s/2", text: "Interesting point about the budget." })
        yield* passUntil(t.decided(2), "s/2's verdict")
        assert.strictEqual(yield* t.read, 1)
        yield* adjustTo(firstRead + 59_999)
        assert.strictEqual(yield* t.read, 1)
        yield* adjustTo(firstRead + 60_000)
        assert.strictEqual(yield* t.read, 2)
      })
    )
  )

  effectIt.effect(
    "warden_checkpoint_lag_seconds counts the seconds since the source's last commit, and a new item's commit brings it back",
    withGauge("lag", ["warden_checkpoint_lag_seconds", 'source="lag"'], (t) =>
      Effect.gen(function* () {
        yield* passUntil(
          Effect.map(t.read, (s) => s !== undefined),
          "lag/1 committed"
        )
        const committedAt = (yield* Clock.currentTimeMillis) - Math.round((yield* t.read)! * 1000)
        // Nothing new on the platform: its polls find nothing, commit nothing, and the lag grows.
        yield* adjustTo(committedAt + 90_000)
        assert.strictEqual(yield* t.read, 90)
        t.platform.publish({ kind: "upsert", reference: "lag/2", text: "Interesting point about the budget." })
        yield* passUntil(t.decided(2), "lag/2's verdict")
        yield* passUntil(
          Effect.map(t.read, (s) => s !== undefined && s < 1),
          "lag/2 committed"
        )
      })
    )
  )

  effectIt.effect(
    "a source that says its quiet polls found nothing (progress): the lag counts from its last successful poll",
    withGauge(
      "quiet",
      ["warden_checkpoint_lag_seconds", 'source="quiet"'],
      (t) =>
        Effect.gen(function* () {
          yield* passUntil(
            Effect.map(t.read, (s) => s !== undefined),
            "quiet/1 committed"
          )
          const committedAt = (yield* Clock.currentTimeMillis) - Math.round((yield* t.read)! * 1000)
          // Nothing new for 90 s: the polls go on, find nothing and say so; the last one is committed.
          yield* adjustTo(committedAt + 90_000)
          yield* passUntil(
            Effect.map(t.read, (s) => s !== undefined && s < 1),
            "a quiet poll's progress committed"
          )
        }),
      { progress: true }
    )
  )

  effectIt.effect(
    "a stuck pipeline still looks stuck: quiet polls behind an item the API has not taken do not reset the lag",
    withGauge(
      "stuck",
      ["warden_checkpoint_lag_seconds", 'source="stuck"'],
      (t) =>
        Effect.gen(function* () {
          yield* passUntil(
            Effect.map(t.read, (s) => s !== undefined),
            "stuck/1 committed"
          )
          const committedAt = (yield* Clock.currentTimeMillis) - Math.round((yield* t.read)! * 1000)
          // The API answers 503 from now on: stuck/2 is handed back again and again, and the polls after
          // it, which find nothing, say so behind it.
          yield* t.sandbox.setFaults({ transient: 1 })
          t.platform.publish({ kind: "upsert", reference: "stuck/2", text: "Interesting point about the budget." })
          yield* adjustTo(committedAt + 90_000)
          for (let i = 0; i < 50; i++) yield* passUntil(Effect.succeed(true), "a step", "100 millis")
          assert.isAtLeast((yield* t.read)!, 90)
          // The API is back: stuck/2 is analysed, and its commit (or a later poll's) brings the lag back.
          yield* t.sandbox.setFaults({})
          // (its hand-back backoff has grown meanwhile: half a second of the clock a step)
          yield* passUntil(t.decided(2), "stuck/2's verdict", "500 millis")
          yield* passUntil(
            Effect.map(t.read, (s) => s !== undefined && s < 1),
            "stuck/2 committed"
          )
        }),
      { progress: true }
    )
  )
})
