/**
 * Deliveries that outlast a deploy (issue 38): a webhook receiver (a real HTTP server on loopback)
 * down for 10 minutes of TestClock time (its port closed: ECONNREFUSED) loses nothing and leaves no
 * dead letter; the worker logs one WARN line when the sink starts failing and one INFO line when it
 * delivers again, finds the receiver within a minute of its return, and `/readyz`'s report says the
 * sink is degraded meanwhile without making the daemon unready. A 400 dead-letters its record at once;
 * the retry window ending dead-letters what still fails. On SQLite and on PostgreSQL.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Logger } from "effect"
import { SqlClient } from "effect/sql"
import * as Readiness from "../src/admin/Readiness.ts"
import * as SinkOutage from "../src/sinks/SinkOutage.ts"
import * as SinkWorker from "../src/sinks/SinkWorker.ts"
import * as WebhookSink from "../src/sinks/WebhookSink.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import { OutboxStore } from "../src/state/OutboxStore.ts"
import type { StateLocation } from "../src/Daemon.ts"
import { itemRecord, verdictRecord } from "./support/ItemRecords.ts"
import { bodyOf } from "./support/LoopbackServer.ts"
import { type OnState, onFreshState, stateBackends } from "./support/StateBackends.ts"
import { adjustTo, atWallTime, eventually } from "./support/TestTime.ts"

/**
 * A webhook receiver on a loopback port that can go down (its port closed) and come back on the same
 * port; `status` answers each delivery (default 204). Records the references it took.
 */
const receiver = Effect.acquireRelease(
  Effect.promise(async () => {
    const took: Array<string> = []
    let status = (_reference: string) => 204
    const server: Server = createServer((req, res) => {
      void bodyOf(req).then((body) => {
        const reference = JSON.parse(body.toString("utf8")).reference as string
        const code = status(reference)
        if (code >= 200 && code < 300) took.push(reference)
        res.writeHead(code)
        res.end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    return {
      url: `http://127.0.0.1:${port}/hook`,
      took,
      answer: (f: (reference: string) => number) => {
        status = f
      },
      down: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
      up: () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve)),
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    }
  }),
  (r) => Effect.promise(() => r.close().catch(() => undefined))
)

/** The lines logged at INFO and above, as `LEVEL message`. */
const capture = (lines: Array<string>) =>
  Logger.layer([
    Logger.make(({ message, logLevel }) => {
      if (logLevel !== "Debug" && logLevel !== "Trace")
        lines.push(`${logLevel} ${[message].flat().map(String).join(" ")}`)
    })
  ])

/**
 * Records three verdicts for sink `hook` on a fresh state (`fresh`) and starts its worker on the
 * TestClock (set to the real time); `test` gets the TestClock time the worker started at.
 * The worker is stopped with the state (its last drain, which waits on the clock, then fails at once).
 */
const withHook = <A, E>(
  fresh: () => Promise<StateLocation>,
  windowMillis: number,
  url: string,
  test: (start: number) => Effect.Effect<A, E, OnState>
) =>
  Effect.andThen(
    // The TestClock set to the real time before the state is opened: set after, PostgreSQL's pool saw
    // 56 years pass at once, and its periodic work (a look every few seconds) ran for every one of those
    // looks, which never ended (these runs hung on PostgreSQL).
    atWallTime,
    onFreshState(
      fresh,
      Effect.gen(function* () {
        const store = yield* ItemStore
        for (const [i, ref] of ["a", "b", "c"].entries()) {
          const r = verdictRecord(ref)
          yield* store.recordItems([
            {
              item: itemRecord("s", ref, 1, { verdict: r.verdict, analysedAt: r.analysedAt, createdAt: i }),
              sinks: ["hook"],
              payload: JSON.stringify(r)
            }
          ])
        }
        const start = yield* Clock.currentTimeMillis
        const sink = { ...WebhookSink.make({ name: "hook", url, secret: undefined }), retryWindowMillis: windowMillis }
        yield* Effect.forkScoped(SinkWorker.run(sink))
        return yield* test(start)
      })
    )
  ).pipe(Effect.orDie)

const outboxRows = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ reference: string; attempts: number }>`SELECT reference, attempts FROM warden_outbox ORDER BY reference`,
    (rows) => rows.map((r) => `${r.reference}:${Number(r.attempts)}`)
  )
)
const deadLetters = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{
      reference: string
      last_error: string
    }>`SELECT reference, last_error FROM warden_dead_letters ORDER BY reference`,
    (rows) => rows.map((r) => `${r.reference}: ${r.last_error}`)
  )
)

/** When the failing sink is tried, from its first failure: 500 ms doubling, at most a minute apart. */
const tries = (until: number): Array<number> => {
  const at = [0]
  for (let n = 1; at.at(-1)! < until; n++) at.push(at.at(-1)! + SinkOutage.retryDelayMillis(n))
  return at
}

describe.each(stateBackends())("a webhook receiver down for a deploy, on the TestClock, on %s", (_, fresh) => {
  it.effect(
    "down 10 minutes: nothing lost, no dead letter, found within a minute of its return; one failing line, one recovered line; /readyz degraded but ready",
    () => {
      const lines: Array<string> = []
      return Effect.gen(function* () {
        const hook = yield* receiver
        yield* Effect.promise(hook.down)
        yield* withHook(fresh, 24 * 3_600_000, hook.url, (start) =>
          Effect.gen(function* () {
            const schedule = tries(10 * 60_000)
            // Each try of the failing sink: all three records in one batch, one more attempt each.
            for (const [n, at] of schedule.slice(0, -1).entries()) {
              yield* adjustTo(start + at)
              yield* eventually(
                Effect.map(outboxRows, (rows) => rows.join() === `a:${n + 1},b:${n + 1},c:${n + 1}`),
                `try ${n + 1} at ${at} ms`
              )
            }
            // Meanwhile /readyz: ready (200), degraded since the first failure.
            const failing = yield* Effect.flatMap(OutboxStore, (store) => store.failing)
            const report = Readiness.report({
              storeProblem: undefined,
              states: new Map(),
              unrecognised: new Map(),
              lastVerdicts: new Map(),
              now: yield* Clock.currentTimeMillis,
              failingSinks: failing
            })
            assert.isTrue(report.ready)
            assert.deepStrictEqual(report.problems, [
              `degraded: sink hook failing since ${new Date(start).toISOString()} (3 records waiting for a retry; the others queued behind them)`
            ])
            // Back after 10 minutes: found at the next try, within a minute.
            yield* adjustTo(start + 10 * 60_000)
            yield* Effect.promise(hook.up)
            const found = schedule.at(-1)!
            assert.isBelow(found - 10 * 60_000, 60_000)
            yield* adjustTo(start + found - 1)
            assert.deepStrictEqual(hook.took, [])
            yield* adjustTo(start + found)
            yield* eventually(
              Effect.map(outboxRows, (rows) => rows.length === 0),
              "the three delivered"
            )
            assert.deepStrictEqual(hook.took, ["a", "b", "c"])
            assert.deepStrictEqual(yield* deadLetters, [])
            assert.deepStrictEqual(yield* Effect.flatMap(OutboxStore, (store) => store.failing), [])
            const until = new Date(start + 24 * 3_600_000).toISOString()
            assert.deepStrictEqual(
              lines.filter((l) => l.includes("sink hook")),
              [
                `Warn sink hook failing: no answer: connect ECONNREFUSED ${new URL(hook.url).host}; retrying until ${until}`,
                `Info sink hook delivering again after ${SinkOutage.formatSpan(found)}; 3 records waited`
              ]
            )
            assert.deepStrictEqual(
              lines.filter((l) => !l.includes("sink hook")),
              [],
              "no other line: not one per attempt per record"
            )
          })
        )
      }).pipe(Effect.scoped, Effect.provide(capture(lines)))
    },
    60_000
  )

  it.effect("a 400 dead-letters its record at once; the others are delivered, and no failing line", () => {
    const lines: Array<string> = []
    return Effect.gen(function* () {
      const hook = yield* receiver
      hook.answer((reference) => (reference === "b" ? 400 : 204))
      yield* withHook(fresh, 24 * 3_600_000, hook.url, () =>
        Effect.gen(function* () {
          yield* eventually(
            Effect.map(outboxRows, (rows) => rows.length === 0),
            "the outbox empty"
          )
          assert.deepStrictEqual(hook.took, ["a", "c"])
          assert.deepStrictEqual(yield* deadLetters, ["b: HTTP 400: the receiver refused the record"])
          assert.isFalse(lines.some((l) => l.includes("failing")))
        })
      )
    }).pipe(Effect.scoped, Effect.provide(capture(lines)))
  })

  it.effect("the retry window ending dead-letters what still fails, naming the window", () =>
    Effect.gen(function* () {
      const hook = yield* receiver
      hook.answer(() => 503)
      yield* withHook(fresh, 10_000, hook.url, (start) =>
        Effect.gen(function* () {
          const schedule = tries(10_000)
          for (const [n, at] of schedule.slice(0, -1).entries()) {
            yield* adjustTo(start + at)
            yield* eventually(
              Effect.map(outboxRows, (rows) => rows.join() === `a:${n + 1},b:${n + 1},c:${n + 1}`),
              `try ${n + 1}`
            )
          }
          assert.deepStrictEqual(yield* deadLetters, [])
          yield* adjustTo(start + schedule.at(-1)!)
          yield* eventually(
            Effect.map(outboxRows, (rows) => rows.length === 0),
            "the outbox empty"
          )
          assert.deepStrictEqual(
            yield* deadLetters,
            ["a", "b", "c"].map((r) => `${r}: HTTP 503 (retried for 10s, the sink's retry.window)`)
          )
          assert.deepStrictEqual(hook.took, [])
        })
      )
    }).pipe(Effect.scoped)
  )
})
