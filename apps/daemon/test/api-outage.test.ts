/**
 * A batch the API does not take, on the TestClock, on the real daemon layer and the sandbox API: while
 * the API answers 503 the batch is handed back and sent again after 500 ms, doubling (±20%) up to the
 * pause retry, and goes through once the API answers; a refused key pauses the source, which tries
 * again every pause retry. The HTTP calls are real: the test moves the clock only once each call's
 * outcome is in, and reads when each hand-back happened from the daemon's own log lines.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Connector, type SourceEvent } from "@warden/connector"
import { Sandbox } from "@warden/sandbox"
import { Context, type Duration, Effect, Layer, Logger, Schema, Stream } from "effect"
import * as Daemon from "../src/Daemon.ts"
import { SourceStatus } from "../src/engine/SourceStatus.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { DecisionStore } from "../src/state/DecisionStore.ts"
import { sourceSettings } from "./support/TestPlatform.ts"
import { bodyOf, forward, serve } from "./support/LoopbackServer.ts"
import { adjustTo, buildOnTestClock, eventually, passUntil } from "./support/TestTime.ts"

/** A source `src` that reads one comment, then waits for more. */
const oneComment = Connector.make({
  type: "one-comment",
  configSchema: Schema.Struct({}),
  capabilities: { actions: [], duplicates: "possible", contentTypes: ["text"] },
  make: () =>
    Effect.succeed({
      events: () =>
        Stream.make({
          kind: "upsert",
          reference: "c/1",
          checkpoint: { seq: 1 },
          content: { type: "text", text: "What a lovely article" }
        } as SourceEvent.SourceEvent).pipe(Stream.concat(Stream.never))
    })
})

/**
 * The daemon (no admin server) on `api`, with source `src`, for the test's scope; `logged(prefix)`
 * answers the TestClock times of the daemon's log lines starting with `prefix`.
 */
const daemonOn = (api: string, pauseRetry: Duration.Input) =>
  Effect.gen(function* () {
    const lines: Array<{ readonly at: number; readonly message: string }> = []
    const capture = Logger.make(({ message, date }) => {
      const first = Array.isArray(message) ? message[0] : message
      lines.push({ at: date.getTime(), message: String(first) })
    })
    const dir = mkdtempSync(join(tmpdir(), "warden-outage-"))
    const context = yield* buildOnTestClock(
      Daemon.layer({
        state: { _tag: "sqlite", filename: join(dir, "state.db") },
        // One HTTP attempt per send: the waits asserted are the pipeline's, not the transport's retries.
        api: { apiKey: "sandbox-standard-key", baseUrls: { global: api }, retry: { maxAttempts: 1 } },
        sources: [{ settings: sourceSettings("src", "one-comment"), connector: oneComment, config: {} }],
        sinks: Layer.succeed(SinkList, []),
        sinkNames: [],
        admin: undefined,
        pipeline: { pauseRetry, maxWait: "20 millis" }
      }).pipe(Layer.provide(Logger.layer([capture], { mergeWithExisting: true })))
    )
    const status = Context.get(context, SourceStatus)
    const decisions = Context.get(context, DecisionStore)
    return {
      logged: (prefix: string) => lines.filter((l) => l.message.startsWith(prefix)).map((l) => l.at),
      state: Effect.map(status.all, (all) => all.get("src")),
      decided: Effect.map(decisions.decisions({ limit: 10 }), (rows) => rows.length)
    }
  })

/**
 * A front to the sandbox counting the calls: each is passed on as it came, or, while `refusing`, with
 * a key the sandbox does not know (which answers its own 401).
 */
const keyGate = (sandbox: string) =>
  Effect.gen(function* () {
    const gate = { refusing: true, calls: 0 }
    const url = yield* serve(async (req, res) => {
      gate.calls++
      await forward(sandbox, req, await bodyOf(req), res, gate.refusing ? { authorization: "ApiKey rotated-away" } : {})
    })
    return Object.assign(gate, { url })
  })

describe("a batch the API does not take, on the TestClock", () => {
  it.effect(
    "is handed back and sent again after 500 ms, doubling (±20%) up to the pause retry, until the API answers",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.start({ faults: { transient: 1 } })
        const daemon = yield* daemonOn(sandbox.url, "3 seconds")
        const handedBack = Effect.sync(() => daemon.logged("batch handed back"))
        const handBacks = (n: number) =>
          eventually(
            Effect.map(handedBack, (at) => at.length === n),
            `hand-back ${n}`
          )
        // The source starts once the daemon's singletons are assigned (after the layer is built), then
        // waits 20 ms (maxWait) to fill its batch: time passes 20 ms at a time until the first send fails.
        yield* passUntil(
          Effect.map(handedBack, (at) => at.length > 0),
          "the first hand-back"
        )
        assert.strictEqual((yield* handedBack).length, 1)
        assert.strictEqual((yield* daemon.state)?.state, "api-unavailable")
        // 500 ms, 1 s, 2 s, then the pause retry (3 s): each jittered ±20%.
        for (const [n, wait] of [
          [1, 500],
          [2, 1000],
          [3, 2000],
          [4, 3000],
          [5, 3000]
        ] as const) {
          const previous = (yield* handedBack)[n - 1]!
          yield* adjustTo(previous + wait * 0.8 - 1)
          assert.strictEqual((yield* handedBack).length, n)
          yield* adjustTo(previous + wait * 1.2)
          yield* handBacks(n + 1)
          const gap = (yield* handedBack)[n]! - previous
          assert.isAtLeast(gap, wait * 0.8)
          assert.isAtMost(gap, wait * 1.2)
        }
        assert.strictEqual(yield* daemon.decided, 0)
        // The API answers again: the next send goes through.
        yield* sandbox.setFaults({})
        yield* adjustTo((yield* handedBack)[5]! + 3000 * 1.2)
        yield* eventually(
          Effect.map(daemon.decided, (n) => n === 1),
          "the comment's verdict"
        )
        assert.strictEqual((yield* daemon.state)?.state, "running")
        assert.strictEqual((yield* handedBack).length, 6)
      }).pipe(Effect.scoped)
  )

  it.effect(
    "with the key refused, pauses the source, which tries again every pause retry and carries on once the key works",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.start()
        const gate = yield* keyGate(sandbox.url)
        const daemon = yield* daemonOn(gate.url, "15 seconds")
        yield* passUntil(
          Effect.map(daemon.state, (s) => s?.state === "paused"),
          "the source paused"
        )
        const state = yield* daemon.state
        assert.strictEqual(state?.by, "api")
        assert.include(state?.reason, "AUTHENTICATION_ERROR")
        const [pausedAt] = daemon.logged("source paused") as [number]
        assert.strictEqual(gate.calls, 1)
        yield* adjustTo(pausedAt + 14_999)
        assert.strictEqual(gate.calls, 1)
        yield* adjustTo(pausedAt + 15_000)
        yield* eventually(
          Effect.sync(() => gate.calls === 2),
          "the second try"
        )
        // The operator registers the key: the next try, 15 s later, goes through.
        gate.refusing = false
        yield* adjustTo(pausedAt + 29_999)
        assert.strictEqual(yield* daemon.decided, 0)
        yield* adjustTo(pausedAt + 30_000)
        yield* eventually(
          Effect.map(daemon.decided, (n) => n === 1),
          "the comment's verdict"
        )
        assert.strictEqual((yield* daemon.state)?.state, "running")
        assert.strictEqual(gate.calls, 3)
      }).pipe(Effect.scoped)
  )
})
