/**
 * `warden_sink_backlog`: set from the outbox itself, present (0) from the start, up while a sink
 * refuses and back to 0 once it drains; meanwhile `warden_sink_oldest_pending_seconds` grows and
 * `/readyz` answers 200 with the sink degraded (issue 38). On the TestClock, on the real daemon layer with its admin
 * server, the sandbox as the API and a fake platform: the refused records' retries (500 ms, 1 s, 2 s,
 * ...) pass without waiting.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Sandbox } from "@warden/sandbox"
import { Context, Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { AdminServer } from "../src/admin/AdminServer.ts"
import * as Daemon from "../src/Daemon.ts"
import * as SinkApi from "../src/sinks/Sink.ts"
import type { Sink } from "../src/sinks/Sink.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { ADMIN_TOKEN } from "./support/InProcess.ts"
import { platformSource, startPlatform } from "./support/TestPlatform.ts"
import { buildOnTestClock, dateNowFollowsTestClock, eventually, passUntil } from "./support/TestTime.ts"

describe("warden_sink_backlog", () => {
  it.effect("is 0 from the start, follows the outbox up while the sink refuses, and back to 0 once it drains", () =>
    Effect.gen(function* () {
      // the outbox's retry times are written and compared with Date.now()
      yield* dateNowFollowsTestClock
      /** A sink that refuses every record until it is opened. */
      let open = false
      const gated: Sink = {
        name: "gated",
        type: "test",
        batchSize: 10,
        deliver: (records) =>
          Effect.sync(() => records.map(() => (open ? undefined : SinkApi.retryable("the sink is closed"))))
      }
      const sandbox = yield* Sandbox.start()
      const platform = yield* Effect.acquireRelease(Effect.promise(startPlatform), (p) => Effect.promise(p.close))
      const context = yield* buildOnTestClock(
        Daemon.layer({
          state: { _tag: "sqlite", filename: join(mkdtempSync(join(tmpdir(), "warden-backlog-")), "state.db") },
          api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
          sources: [platformSource(platform.url)],
          sinks: Layer.succeed(SinkList, [gated]),
          sinkNames: [gated.name],
          admin: { host: "127.0.0.1", port: 0, token: Redacted.make(ADMIN_TOKEN) }
        })
      )
      const admin = Context.get(context, AdminServer).url
      const metrics = `${admin}/metrics`
      /** A gauge of sink `gated` as `/metrics` shows it (undefined: no such series). */
      const gauge = (name: string) =>
        Effect.promise(async () => {
          const text = await (await fetch(metrics, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text()
          const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes('sink="gated"'))
          return line === undefined ? undefined : Number(line.split(" ").at(-1))
        })
      const backlog = gauge("warden_sink_backlog")
      const readyz = Effect.promise(async () => {
        const res = await fetch(`${admin}/readyz`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
        return { status: res.status, problems: ((await res.json()) as { problems: Array<string> }).problems }
      })
      const backlogIs = (n: number) => Effect.map(backlog, (b) => b === n)

      yield* eventually(backlogIs(0), "the gauge at 0 before any verdict")
      for (let i = 0; i < 6; i++) platform.publish({ kind: "upsert", reference: `b/${i}`, text: `comment ${i}` })
      yield* passUntil(backlogIs(6), "a backlog of 6")
      // Refused again and again for a minute (retries after 500 ms, 1 s, 2 s... 32 s): all still there.
      yield* TestClock.adjust("1 minute")
      yield* eventually(backlogIs(6), "a backlog of 6 after a minute")
      // Behind by the time of its last try (31.5 s: tries at 0.5, 1.5, 3.5 ... 31.5 s, the next at
      // 63.5 s), and degraded, not unready: a load balancer keeps the daemon.
      assert.isAtLeast((yield* gauge("warden_sink_oldest_pending_seconds")) ?? 0, 31)
      const degraded = yield* readyz
      assert.strictEqual(degraded.status, 200)
      assert.isTrue(
        degraded.problems.some((p) => /^degraded: sink gated failing since \d{4}-[\d-]+T[\d:.]+Z /u.test(p)),
        degraded.problems.join("; ")
      )
      open = true
      yield* passUntil(backlogIs(0), "the backlog drained to 0", "1 second")
      assert.strictEqual(yield* backlog, 0)
      assert.strictEqual(yield* gauge("warden_sink_oldest_pending_seconds"), 0)
      assert.isFalse((yield* readyz).problems.some((p) => p.startsWith("degraded:")))
    }).pipe(Effect.scoped)
  )
})
