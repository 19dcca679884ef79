/**
 * How the daemon supervises a source: an invalid event is dead-lettered and skipped, a stream that
 * ends is finished (not restarted), a failing stream is restarted with backoff, a non-retryable error
 * pauses the source until its checkpoint is reset (`warden source checkpoint reset`). The waits (the
 * restart backoff, the pause retry) are asserted on the TestClock, on the real daemon layer; the
 * in-process daemons with the sandbox API cover what the admin API and the CLI show of it.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { Connector, ConnectorError, type SourceEvent } from "@warden/connector"
import { Sandbox } from "@warden/sandbox"
import { assert, it } from "@effect/vitest"
import { Clock, Context, type Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import { afterEach, describe, expect } from "vitest"
import * as Daemon from "../src/Daemon.ts"
import type { SourceSpec } from "../src/engine/Pipeline.ts"
import { SourceStatus } from "../src/engine/SourceStatus.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { CheckpointStore } from "../src/state/CheckpointStore.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { query } from "./support/StateDb.ts"
import { adjustTo, buildOnTestClock, eventually } from "./support/TestTime.ts"
import { warden } from "./support/WardenCli.ts"

const text = (reference: string, checkpoint: unknown, body = "What a lovely article"): SourceEvent.SourceEvent =>
  ({ kind: "upsert", reference, checkpoint, content: { type: "text", text: body } }) as SourceEvent.SourceEvent

/**
 * A connector whose stream `events(from, run)` builds; `makes` counts the sources made, `madeAt` says
 * when (by the fiber's `Clock`: the TestClock's time in `it.effect`).
 */
const scripted = (
  events: (
    from: Option.Option<unknown>,
    run: number
  ) => Stream.Stream<SourceEvent.SourceEvent, ConnectorError.ConnectorError>
) => {
  const counter = { makes: 0, madeAt: [] as Array<number> }
  const connector = Connector.make({
    type: "scripted",
    configSchema: Schema.Struct({}),
    capabilities: { actions: [], duplicates: "possible", contentTypes: ["text"] },
    make: () =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const run = ++counter.makes
        counter.madeAt.push(now)
        return { events: (from: Option.Option<unknown>) => events(from, run) }
      })
  })
  return { connector, counter }
}

const sourceSpec = (connector: Connector.Connector): SourceSpec => ({
  settings: {
    id: "scripted",
    connector: "scripted",
    channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
    mode: "v1",
    analyse: new Set(["text"]),
    oversize: "split",
    dryRun: false
  },
  connector,
  config: {}
})

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

const start = async (
  connector: Connector.Connector,
  stateFile = join(mkdtempSync(join(tmpdir(), "warden-supervision-")), "state.db")
) => {
  const sandbox = await Sandbox.startPromise()
  closers.push(() => sandbox.close())
  const dir = dirname(stateFile)
  const daemon = await startDaemonInProcess({
    state: { _tag: "sqlite", filename: stateFile },
    api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
    sources: [sourceSpec(connector)],
    sinks: Layer.succeed(SinkList, []),
    sinkNames: [],
    pipeline: { pauseRetry: "200 millis" }
  })
  closers.push(daemon.close)
  const sourceState = async () => (await daemon.admin("/readyz")).body.sources.scripted
  return { daemon, dir, stateFile, sourceState }
}

/**
 * Runs the daemon layer (no admin server; the API is never called) with `connector` as source
 * `scripted`, on the fiber's clock, for the test's scope; answers the source's state.
 */
const onTestClock = (connector: Connector.Connector, pauseRetry: Duration.Input = "15 seconds") =>
  Effect.gen(function* () {
    const dir = mkdtempSync(join(tmpdir(), "warden-supervision-clock-"))
    const context = yield* buildOnTestClock(
      Daemon.layer({
        state: { _tag: "sqlite", filename: join(dir, "state.db") },
        api: { apiKey: "sandbox-standard-key", baseUrls: { global: "http://127.0.0.1:9" } },
        sources: [sourceSpec(connector)],
        sinks: Layer.succeed(SinkList, []),
        sinkNames: [],
        admin: undefined,
        pipeline: { pauseRetry }
      })
    )
    const status = Context.get(context, SourceStatus)
    return {
      state: Effect.map(status.all, (states) => states.get("scripted")),
      checkpoints: Context.get(context, CheckpointStore)
    }
  })

describe("source restarts, on the TestClock", () => {
  it.effect("a failing stream is restarted after 1 s, then 2 s (±20%), and its state says why", () =>
    Effect.gen(function* () {
      const { connector, counter } = scripted(() => Stream.die(new Error("boom in the plugin")))
      const { state } = yield* onTestClock(connector)
      const restarting = (attempt: number) =>
        eventually(
          Effect.map(state, (s) => s?.state === "restarting" && s.attempt === attempt),
          `restart ${attempt} reported`
        )
      yield* restarting(1)
      const reported = yield* state
      assert.include(reported?.reason, "boom in the plugin")
      assert.match(reported?.reason ?? "", /; restarting in \d/)
      // Make n + 1 comes 1 s doubling after make n, ±20%: not before the shortest wait, by the longest.
      for (const [n, wait] of [
        [1, 1000],
        [2, 2000]
      ] as const) {
        const previous = counter.madeAt[n - 1]!
        yield* adjustTo(previous + wait * 0.8 - 1)
        assert.strictEqual(counter.makes, n)
        yield* adjustTo(previous + wait * 1.2)
        yield* restarting(n + 1)
        const gap = counter.madeAt[n]! - previous
        assert.isAtLeast(gap, wait * 0.8)
        assert.isAtMost(gap, wait * 1.2)
      }
    }).pipe(Effect.scoped)
  )

  it.effect("an ended stream is finished and never made again", () =>
    Effect.gen(function* () {
      const { connector, counter } = scripted(() => Stream.empty)
      const { state } = yield* onTestClock(connector)
      yield* eventually(
        Effect.map(state, (s) => s?.state === "finished"),
        "the source finished"
      )
      // The old daemon called make 2,100 times in 10 s.
      yield* TestClock.adjust("10 minutes")
      assert.strictEqual(counter.makes, 1)
      assert.strictEqual((yield* state)?.state, "finished")
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a source paused by a non-retryable error is made again only once its checkpoint changes, at the next pause retry",
    () =>
      Effect.gen(function* () {
        const { connector, counter } = scripted((from) =>
          Option.isSome(from)
            ? Stream.never
            : Stream.fail(
                new ConnectorError.ConnectorError({
                  source: "scripted",
                  reason: "Unauthorized",
                  retryable: false,
                  message: "token revoked"
                })
              )
        )
        const { state, checkpoints } = yield* onTestClock(connector, "15 seconds")
        yield* eventually(
          Effect.map(state, (s) => s?.state === "paused"),
          "the source paused"
        )
        const [pausedAt] = counter.madeAt as [number]
        assert.strictEqual((yield* state)?.by, "source")
        yield* TestClock.adjust("10 minutes")
        assert.strictEqual(counter.makes, 1)
        // An operator's answer: a new checkpoint (what `warden source checkpoint reset` also is).
        yield* checkpoints.commitCheckpoint("scripted", '{"cursor":1}')
        const nextRetry = pausedAt + 10 * 60_000 + 15_000
        yield* adjustTo(nextRetry - 1)
        assert.strictEqual(counter.makes, 1)
        yield* adjustTo(nextRetry)
        yield* eventually(
          Effect.map(state, (s) => s?.state === "running"),
          "the source running again"
        )
        assert.strictEqual(counter.makes, 2)
      }).pipe(Effect.scoped)
  )
})

describe("source supervision", () => {
  it("an invalid event is dead-lettered and the source goes on", async () => {
    const { connector } = scripted(() =>
      Stream.make(
        text("hn:1", { seq: 1 }),
        text(`hn:${"x".repeat(322)}`, { seq: 2 }),
        text("hn:3", { seq: 3n }),
        { kind: "upsert", reference: "hn:4", checkpoint: { seq: 4 }, content: { type: "text" } } as never,
        text("hn:5", { seq: 5 }, "You are an idiot")
      ).pipe(Stream.concat(Stream.never))
    )
    const { daemon, stateFile } = await start(connector)
    await waitFor(
      async () => (await daemon.admin("/api/decisions?source=scripted")).body.decisions.length === 2,
      30_000,
      "the two valid items analysed"
    )
    const decided = (await daemon.admin("/api/decisions?source=scripted")).body.decisions.map((d: any) => d.reference)
    expect(decided.sort()).toEqual(["hn:1", "hn:5"])
    const { body } = await daemon.admin("/api/dead-letters?source=scripted")
    const letters = body.deadLetters.map((l: any) => [l.reference.slice(0, 6), l.field, l.count])
    expect(letters.sort()).toEqual([
      ["hn:3", "checkpoint.seq", 1],
      ["hn:4", "content.text", 1],
      ["hn:xxx", "reference", 1]
    ])
    const long = body.deadLetters.find((l: any) => l.field === "reference")
    expect(long.reference).toHaveLength(325)
    expect(long.reason).toContain("256")
    expect(body.deadLetters.find((l: any) => l.field === "checkpoint.seq").reason).toBe("a bigint is not JSON")
    // The checkpoint moved past the bad events: the last valid one's.
    await waitFor(
      () =>
        query<{ checkpoint: string }>(stateFile, "SELECT checkpoint FROM warden_checkpoints")[0]?.checkpoint ===
        '{"seq":5}',
      10_000,
      "the checkpoint of hn:5"
    )
    const metrics = await fetch(`${daemon.adminUrl}/metrics`, { headers: { authorization: "Bearer test-admin-token" } })
    expect(await metrics.text()).toMatch(/warden_source_dead_letters_total\{[^}]*field="checkpoint"[^}]*\} 1/)
    expect((await daemon.admin("/readyz")).body.sources.scripted.state).toBe("running")
  }, 60_000)

  it("an ended stream's events are analysed, and readiness shows it finished, the daemon ready", async () => {
    const { connector, counter } = scripted(() => Stream.make(text("hello:1", { n: 1 })))
    const { daemon, sourceState } = await start(connector)
    await waitFor(async () => (await sourceState())?.state === "finished", 30_000, "the source finished")
    await waitFor(
      async () => (await daemon.admin("/api/decisions?source=scripted")).body.decisions.length === 1,
      30_000,
      "the one event analysed"
    )
    // Never made again: over 10 minutes in "an ended stream is finished and never made again".
    expect(counter.makes).toBe(1)
    const state = await sourceState()
    expect(state.state).toBe("finished")
    expect((await daemon.admin("/readyz")).body.ready).toBe(true)
  }, 60_000)

  it("a failing stream: readiness says it is restarting, and why", async () => {
    const { connector } = scripted(() => Stream.die(new Error("boom in the plugin")))
    const { sourceState } = await start(connector)
    // The backoff's delays are asserted in "a failing stream is restarted after 1 s, then 2 s".
    let state = await sourceState()
    await waitFor(
      async () => {
        state = await sourceState()
        return state?.state === "restarting"
      },
      30_000,
      "readiness to say the source is restarting"
    )
    expect(state.reason).toContain("boom in the plugin")
    expect(state.attempt).toBeGreaterThanOrEqual(1)
  }, 60_000)

  it("a non-retryable error pauses the source until its checkpoint is reset", async () => {
    // First run: one item then, once its checkpoint is stored, an upstream outage; the restart resumes
    // from a checkpoint this connector refuses (a bad cursor), until an operator resets it.
    const stateFile = join(mkdtempSync(join(tmpdir(), "warden-supervision-")), "state.db")
    const committed = Effect.promise(() =>
      waitFor(
        () => query(stateFile, "SELECT checkpoint FROM warden_checkpoints").length === 1,
        30_000,
        "the checkpoint of hn:1"
      )
    )
    const { connector, counter } = scripted((from, run) =>
      Option.isSome(from)
        ? Stream.fail(
            new ConnectorError.ConnectorError({
              source: "scripted",
              reason: "InvalidCheckpoint",
              retryable: false,
              message: "cursor 'abc' is not a number"
            })
          )
        : run === 1
          ? Stream.make(text("hn:1", { cursor: "abc" })).pipe(
              Stream.concat(Stream.fromEffect(committed).pipe(Stream.drain)),
              Stream.concat(
                Stream.fail(
                  new ConnectorError.ConnectorError({
                    source: "scripted",
                    reason: "Unavailable",
                    retryable: true,
                    message: "upstream down"
                  })
                )
              )
            )
          : Stream.never
    )
    const { daemon, dir, sourceState } = await start(connector, stateFile)
    await waitFor(async () => (await sourceState())?.state === "paused", 30_000, "the source paused")
    const paused = await sourceState()
    expect(paused.by).toBe("source")
    expect(paused.reason).toContain("InvalidCheckpoint")
    expect(paused.reason).toContain("warden source checkpoint reset")
    const readyz = (await daemon.admin("/readyz")).body
    expect(readyz.ready).toBe(true)
    expect(readyz.problems.join("\n")).toContain("source scripted paused")
    // Not made again while paused (until the reset below; on the TestClock over 10 minutes in "a
    // source paused by a non-retryable error is made again only once its checkpoint changes").
    const makes = counter.makes

    const config = join(dir, "warden.yaml")
    writeFileSync(
      config,
      [
        "api:",
        "  apiKey: sandbox-standard-key",
        "state:",
        `  sqlite: ${join(dir, "state.db")}`,
        "sources:",
        "  - id: scripted",
        "    type: rss",
        "    channelId: 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
        "    config:",
        "      feeds: [https://example.com/feed.xml]",
        ""
      ].join("\n")
    )
    const shown = await warden(["source", "checkpoint", "show", "--config", config, "--source", "scripted"])
    expect(shown.stdout.trim()).toBe('{"cursor":"abc"}')
    const refused = await warden(["source", "checkpoint", "reset", "--config", config, "--source", "scripted"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--yes")
    const reset = await warden(["source", "checkpoint", "reset", "--config", config, "--source", "scripted", "--yes"])
    expect(reset.code).toBe(0)
    expect(reset.stdout).toMatch(/checkpoint of source scripted reset by \S+@\S+ at \d{4}-/)
    await waitFor(async () => (await sourceState())?.state === "running", 10_000, "the source running again")
    expect(counter.makes).toBe(makes + 1)
    const recorded = query<{ reason: string; message: string }>(
      join(dir, "state.db"),
      "SELECT reason, message FROM warden_source_errors WHERE reason = 'CheckpointReset'"
    )
    expect(recorded[0]?.message).toContain('it was {"cursor":"abc"}')
  }, 60_000)
})

describe("a stored checkpoint that is not JSON", () => {
  it("pauses the source with the reason and the command that resets it, not a crash", async () => {
    const { connector, counter } = scripted((from) =>
      Option.isSome(from) ? Stream.never : Stream.make(text("hn:1", { cursor: 1 })).pipe(Stream.concat(Stream.never))
    )
    const first = await start(connector)
    await waitFor(
      () => query(first.stateFile, "SELECT checkpoint FROM warden_checkpoints WHERE source = 'scripted'").length === 1,
      30_000,
      "the first checkpoint"
    )
    for (const close of closers.splice(0).reverse()) await close()
    // changed behind the daemon's back (a hand edit, a disk error)
    const db = new DatabaseSync(first.stateFile)
    db.prepare("UPDATE warden_checkpoints SET checkpoint = ? WHERE source = 'scripted'").run('{"cursor": 1')
    db.close()
    const makes = counter.makes
    const { sourceState } = await start(connector, first.stateFile)
    await waitFor(async () => (await sourceState())?.state === "paused", 30_000, "the source paused")
    const paused = await sourceState()
    expect(paused.reason).toContain("InvalidCheckpoint")
    expect(paused.reason).toContain("the stored checkpoint is not JSON")
    expect(paused.reason).toContain("warden source checkpoint reset --source scripted")
    // the source was never made on a checkpoint it cannot be given
    expect(counter.makes).toBe(makes)
  }, 60_000)
})

describe("source supervision of broken plugins", () => {
  it("a source declaring actions without act is paused with the reason, not run half-working", async () => {
    const { connector: base, counter } = scripted(() => Stream.never)
    const actless = Connector.make({ ...base, capabilities: { ...base.capabilities, actions: ["hide"] } })
    const { sourceState } = await start(actless)
    await waitFor(async () => (await sourceState())?.state === "paused", 30_000, "the source paused")
    const state = await sourceState()
    expect(state.by).toBe("source")
    expect(state.reason).toContain("declares actions [hide] but its source has no act")
    expect(counter.makes).toBe(1)
  }, 60_000)

  it("warden source preview flags an event the daemon would dead-letter", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-preview-bad-"))
    const config = join(dir, "config.yaml")
    writeFileSync(config, "{}\n")
    const plugin = new URL("./fixtures/config/plugins/bad-events.mjs", import.meta.url).pathname
    const run = await warden(["source", "preview", "--module", plugin, "--config", config, "--limit", "2"])
    expect(run.code).toBe(0)
    expect(run.stdout.trim().split("\n")).toHaveLength(2)
    expect(run.stderr).toContain("invalid event, the daemon would dead-letter it: reference: ")
    expect(run.stderr).toContain("256")
  }, 60_000)
})
