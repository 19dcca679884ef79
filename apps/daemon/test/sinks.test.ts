/**
 * Sinks: failed deliveries are retried with backoff (500 ms, then 1 s, doubling) and once the sink's
 * retry window has passed a record moves to the dead-letter table; a verdict recorded, or a dead letter replayed,
 * while the worker waits is delivered at once, asserted on the TestClock; the webhook signs
 * each body and names the delivery, through the worker; the stdout line format. While the state store
 * refuses writes (a full disk: SQLITE_FULL) nothing is delivered twice and the worker waits; a sink
 * refusing whole batches is two log lines, not one per record.
 */
import { createHmac } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Logger, Redacted, type Scope } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { TestClock } from "effect/testing"
import { retryable, type Sink } from "../src/sinks/Sink.ts"
import * as SinkWorker from "../src/sinks/SinkWorker.ts"
import * as StdoutSink from "../src/sinks/StdoutSink.ts"
import * as DeadLetterReplay from "../src/state/DeadLetterReplay.ts"
import * as WebhookSink from "../src/sinks/WebhookSink.ts"
import * as SqliteClient from "../src/state/SqliteClient.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import { OutboxStore } from "../src/state/OutboxStore.ts"
import { StateHealth } from "../src/state/StateHealth.ts"
import type { WriteSignals } from "../src/state/WriteSignals.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { itemRecord, verdictRecord } from "./support/ItemRecords.ts"
import { serve } from "./support/LoopbackServer.ts"
import { adjustTo, atWallTime, eventually } from "./support/TestTime.ts"

/**
 * Runs `test` on a fresh state file whose outbox holds, for sink `sink`, the verdicts of "ok",
 * "flaky" and "always-fails" (in that order), with `SinkWorker.run` draining it in the test's scope.
 * The TestClock starts at the real time (the outbox's due times are epoch milliseconds of the Clock).
 * `before` changes the outbox before the worker starts (given the TestClock time it starts at).
 */
const draining = <A, E, R>(
  sink: Sink,
  test: (outbox: Outbox) => Effect.Effect<A, E, R>,
  before: (start: number) => Effect.Effect<unknown, unknown, SqlClient.SqlClient | StateHealth> = () => Effect.void,
  wrap: (real: OutboxStore["Service"]) => OutboxStore["Service"] = (real) => real
) =>
  Effect.gen(function* () {
    yield* atWallTime
    const store = yield* ItemStore
    const sql = yield* SqlClient.SqlClient
    for (const [i, ref] of ["ok", "flaky", "always-fails"].entries()) {
      const r = verdictRecord(ref)
      yield* store.recordItems([
        {
          item: itemRecord("s", ref, 1, { verdict: r.verdict, analysedAt: r.analysedAt, createdAt: i }),
          sinks: [sink.name],
          payload: JSON.stringify(r)
        }
      ])
    }
    const start = yield* Clock.currentTimeMillis
    yield* before(start)
    const outbox = yield* OutboxStore
    const services = yield* Effect.context<OutboxStore | StateHealth | WriteSignals | Scope.Scope>()
    let worker = yield* Effect.forkScoped(SinkWorker.run(sink).pipe(Effect.provideService(OutboxStore, wrap(outbox))))
    return yield* test({
      restart: Effect.gen(function* () {
        yield* Fiber.interrupt(worker)
        worker = yield* Effect.forkScoped(SinkWorker.run(sink))
      }).pipe(Effect.provideContext(services)),
      at: (offset) => adjustTo(start + offset),
      since: (at) => at - start,
      left: Effect.map(
        sql<{ reference: string; attempts: number }>`
        SELECT reference, attempts FROM warden_outbox ORDER BY reference`,
        (rows) => rows.map((r) => `${r.reference}:${r.attempts}`)
      ),
      dead: Effect.map(
        sql<{ reference: string; attempts: number; last_error: string }>`
        SELECT reference, attempts, last_error FROM warden_dead_letters`,
        (rows) => rows.map((d) => ({ ...d, attempts: Number(d.attempts) }))
      )
    })
  }).pipe(
    Effect.provide(
      StateStore.layer.pipe(
        Layer.provideMerge(
          SqliteClient.layer({ filename: join(mkdtempSync(join(tmpdir(), "warden-sink-")), "state.db") })
        )
      )
    ),
    Effect.scoped
  )

/**
 * The outbox as a test reads it: what is left (`reference:attempts`) and the dead letters; `at` moves
 * the TestClock to `offset` ms after the worker started, `since` is a time as such an offset.
 */
interface Outbox {
  /** Stops the worker and starts another on the outbox as it is (`markDelivered` as stored). */
  readonly restart: Effect.Effect<void>
  readonly at: (offset: number) => Effect.Effect<void>
  readonly since: (at: number) => number
  readonly left: Effect.Effect<Array<string>, unknown>
  readonly dead: Effect.Effect<Array<{ reference: string; attempts: number; last_error: string }>, unknown>
}

/** A sink "mem" (batches of 10, records retried for 1.5 s) whose deliveries `deliver` answers. */
const memorySink = (deliver: Sink["deliver"]): Sink => ({
  name: "mem",
  type: "test",
  batchSize: 10,
  retryWindowMillis: 1_500,
  deliver
})

/** A sink "mem" that takes every record, and the references it was handed, in order. */
const acceptingSink = () => {
  const handed: Array<string> = []
  const sink = memorySink((records) =>
    Effect.sync(() =>
      records.map((r) => {
        handed.push(r.reference)
        return undefined
      })
    )
  )
  return { handed, sink }
}

describe("the sink worker, on the TestClock", () => {
  it("backs off exponentially between attempts", () => {
    assert.deepStrictEqual([1, 2, 3, 4].map(SinkWorker.retryDelayMillis), [500, 1000, 2000, 4000])
    // Capped at a minute: a receiver back after a deploy is found within a minute.
    assert.strictEqual(SinkWorker.retryDelayMillis(8), 60_000)
    assert.strictEqual(SinkWorker.retryDelayMillis(30), 60_000)
  })

  it.effect(
    "retries a failed delivery after 500 ms, then 1 s, and dead-letters it once its retry window has passed",
    () => {
      /** Each record handed to the sink, and when (TestClock milliseconds). */
      const handed: Array<readonly [string, number]> = []
      let flaky = 2
      let fixed = false
      const sink = memorySink((records) =>
        Effect.map(Clock.currentTimeMillis, (now) =>
          records.map((r) => {
            handed.push([r.reference, now])
            if (r.reference === "always-fails") return fixed ? undefined : retryable("HTTP 500")
            return r.reference === "flaky" && flaky-- > 0 ? retryable("HTTP 503") : undefined
          })
        )
      )
      return draining(sink, (outbox) =>
        Effect.gen(function* () {
          /** `reference@offset` of each record handed over. */
          const attempts = () => handed.map(([reference, at]) => `${reference}@${outbox.since(at)}`)
          yield* eventually(
            Effect.map(outbox.left, (left) => left.join() === "always-fails:1,flaky:1"),
            "the first attempts"
          )
          yield* outbox.at(499)
          assert.deepStrictEqual(attempts(), ["ok@0", "flaky@0", "always-fails@0"])
          yield* outbox.at(500)
          yield* eventually(
            Effect.map(outbox.left, (left) => left.join() === "always-fails:2,flaky:2"),
            "the second attempts"
          )
          // Nothing of that batch was delivered: the sink is failing, and is tried again at its own pace
          // (500 ms after the first failed batch), not each record on its own schedule.
          yield* outbox.at(999)
          assert.strictEqual(handed.length, 5)
          yield* outbox.at(1000)
          yield* eventually(
            Effect.map(outbox.left, (left) => left.join() === "always-fails:3"),
            "the third attempts"
          )
          // "flaky" delivered: the sink works; "always-fails" waits its own backoff (2 s), by which time its
          // 1.5 s window has passed.
          yield* outbox.at(2999)
          assert.strictEqual(handed.length, 7)
          yield* outbox.at(3000)
          yield* eventually(
            Effect.map(outbox.left, (left) => left.length === 0),
            "the outbox empty"
          )
          assert.deepStrictEqual(attempts().slice(3), [
            "flaky@500",
            "always-fails@500",
            "flaky@1000",
            "always-fails@1000",
            "always-fails@3000"
          ])
          assert.deepStrictEqual(yield* outbox.dead, [
            {
              reference: "always-fails",
              attempts: 4,
              last_error: "HTTP 500 (retried for 1.5s, the sink's retry.window)"
            }
          ])
          yield* TestClock.adjust("10 minutes")
          assert.strictEqual(handed.length, 8)
          // The sink is fixed and the dead letter replayed (the console's pipeline page): delivered with no
          // time passing, the replay woke the worker.
          fixed = true
          assert.strictEqual(
            yield* DeadLetterReplay.replay(yield* SqlClient.SqlClient, "mem", { name: "test", role: "admin" }),
            1
          )
          yield* eventually(
            Effect.map(outbox.left, (left) => left.length === 0),
            "the replayed dead letter delivered"
          )
          assert.deepStrictEqual(attempts().slice(8), [`always-fails@${outbox.since(yield* Clock.currentTimeMillis)}`])
          assert.deepStrictEqual(yield* outbox.dead, [])
        })
      )
    }
  )

  it.effect("delivers a verdict recorded while it waits at once, not at its next look a second later", () => {
    const { handed, sink } = acceptingSink()
    return draining(sink, (outbox) =>
      Effect.gen(function* () {
        yield* eventually(
          Effect.map(outbox.left, (left) => left.length === 0),
          "the first three delivered"
        )
        // The worker now waits for its next look; no time passes on the TestClock from here on.
        const store = yield* ItemStore
        const r = verdictRecord("later")
        yield* store.recordItems([
          {
            item: itemRecord("s", "later", 1, { verdict: r.verdict, analysedAt: r.analysedAt }),
            sinks: [sink.name],
            payload: JSON.stringify(r)
          }
        ])
        yield* eventually(
          Effect.sync(() => handed.includes("later")),
          "the later verdict delivered"
        )
        assert.deepStrictEqual(handed, ["ok", "flaky", "always-fails", "later"])
      })
    )
  })

  it.effect("after fewer records than its batch it waits for the next write, with no look that finds nothing", () => {
    const { handed, sink } = acceptingSink()
    let reads = 0
    return draining(
      sink,
      (outbox) =>
        Effect.gen(function* () {
          yield* eventually(
            Effect.map(outbox.left, (left) => left.length === 0),
            "the three delivered"
          )
          for (let i = 0; i < 20; i++) yield* Effect.yieldNow
          assert.deepStrictEqual(handed, ["ok", "flaky", "always-fails"])
          // Three records, a batch of 10: the one read took every record due; none was written since.
          assert.strictEqual(reads, 1)
        }),
      () => Effect.void,
      (real) => ({
        ...real,
        pendingOutbox: (sinkName, limit) =>
          Effect.suspend(() => {
            reads++
            return real.pendingOutbox(sinkName, limit)
          })
      })
    )
  })

  it.effect("looks at a retry an earlier process scheduled when it falls due, not at its next unasked look", () => {
    const { handed, sink } = acceptingSink()
    // "flaky" failed once in the process before this one, which scheduled its retry 2 s after this start.
    const failedBefore = (start: number) =>
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql`UPDATE warden_outbox SET attempts = 1, next_attempt_at = ${start + 2_000} WHERE reference = 'flaky'`
      )
    return draining(
      sink,
      (outbox) =>
        Effect.gen(function* () {
          yield* eventually(
            Effect.map(outbox.left, (left) => left.join() === "flaky:1"),
            "the due two delivered"
          )
          yield* outbox.at(1_999)
          assert.deepStrictEqual(handed, ["ok", "always-fails"])
          // On SQLite the worker looks unasked every 10 s: without the retry's time read at start, "flaky"
          // would wait for that look.
          yield* outbox.at(2_000)
          yield* eventually(
            Effect.sync(() => handed.includes("flaky")),
            "the retry delivered at 2 s",
            "5 seconds"
          )
        }),
      failedBefore
    )
  })
})

/** What node:sqlite throws when the file cannot grow (a full disk), as the SQLite client wraps it. */
const databaseFull = () =>
  new SqlError.SqlError({
    reason: SqlError.classifySqliteError(
      Object.assign(new Error("database or disk is full"), {
        code: "ERR_SQLITE_ERROR",
        errcode: 13,
        errno: 13,
        errstr: "database or disk is full"
      }),
      { message: "Failed to execute statement", operation: "execute" }
    )
  })

describe("the sink worker while the state store refuses writes, on the TestClock", () => {
  it.effect(
    "a batch whose acknowledgement the store refused is not delivered again; it is forgotten once the store takes it",
    () => {
      const { handed, sink } = acceptingSink()
      let refusals = 3
      return draining(
        sink,
        (outbox) =>
          Effect.gen(function* () {
            const health = yield* StateHealth
            yield* eventually(
              Effect.sync(() => health.problem() !== undefined),
              "the refused acknowledgement reported"
            )
            assert.strictEqual(health.problem()?.text, "state.sqlite: database or disk is full (SQLITE_FULL)")
            assert.deepStrictEqual(handed, ["ok", "flaky", "always-fails"])
            // The acknowledgement is retried on the store's backoff (200 ms, 400 ms, 800 ms, ±20%), never
            // the delivery: before, the rows stayed due and were appended again every second.
            yield* outbox.at(3_000)
            yield* eventually(
              Effect.map(outbox.left, (left) => left.length === 0),
              "the outbox forgotten"
            )
            assert.deepStrictEqual(handed, ["ok", "flaky", "always-fails"])
            assert.strictEqual(health.problem(), undefined)
          }),
        () => Effect.void,
        (real) => ({
          ...real,
          markDelivered: (ids) =>
            Effect.suspend(() =>
              ids.length > 0 && refusals-- > 0 ? Effect.fail(databaseFull()) : real.markDelivered(ids)
            )
        })
      )
    }
  )

  it.effect(
    "a worker started again (its singleton let go meanwhile) forgets what the one before delivered, without delivering it again",
    () => {
      const { handed, sink } = acceptingSink()
      let refusing = true
      return draining(
        sink,
        (outbox) =>
          Effect.gen(function* () {
            const health = yield* StateHealth
            yield* eventually(
              Effect.sync(() => health.problem() !== undefined),
              "the refused acknowledgement reported"
            )
            // The worker is stopped (its last drain cannot record them either) and started again; then
            // the store takes writes again.
            yield* outbox.restart
            refusing = false
            yield* outbox.at(3_000)
            yield* eventually(
              Effect.map(outbox.left, (left) => left.length === 0),
              "the outbox forgotten"
            )
            assert.deepStrictEqual(handed, ["ok", "flaky", "always-fails"])
          }),
        () => Effect.void,
        (real) => ({
          ...real,
          markDelivered: (ids) =>
            Effect.suspend(() => (refusing ? Effect.fail(databaseFull()) : real.markDelivered(ids)))
        })
      )
    }
  )

  it.effect("waits while the store refuses the daemon's other writes, and delivers once they work", () => {
    const { handed, sink } = acceptingSink()
    return draining(
      sink,
      (outbox) =>
        Effect.gen(function* () {
          const health = yield* StateHealth
          yield* outbox.at(30_000)
          // Nothing delivered: what it delivered now it might not be able to forget.
          assert.deepStrictEqual(handed, [])
          yield* health.recovered("source feed")
          yield* eventually(
            Effect.sync(() => handed.length === 3),
            "the three delivered once the store takes writes"
          )
        }),
      () => Effect.flatMap(StateHealth, (health) => health.report("source feed", databaseFull()))
    )
  })
})

describe("a sink refusing whole batches, on the TestClock", () => {
  it.effect("is one line when it starts and one when it delivers again, not a warning per record", () => {
    const lines: Array<string> = []
    let full = true
    const sink = memorySink((records) =>
      Effect.succeed(records.map(() => (full ? retryable("disk full (ENOSPC)") : undefined)))
    )
    return draining(sink, (outbox) =>
      Effect.gen(function* () {
        yield* eventually(
          Effect.map(outbox.left, (left) => left.join() === "always-fails:1,flaky:1,ok:1"),
          "the first attempt"
        )
        yield* outbox.at(500)
        yield* eventually(
          Effect.map(outbox.left, (left) => left.every((l) => l.endsWith(":2"))),
          "the second attempt"
        )
        full = false
        yield* outbox.at(1_500)
        yield* eventually(
          Effect.map(outbox.left, (left) => left.length === 0),
          "delivered"
        )
        yield* eventually(
          Effect.sync(() => lines.length === 2),
          "the end line"
        )
        assert.deepStrictEqual(lines, [
          `sink mem failing: disk full (ENOSPC); retrying until ${new Date(-outbox.since(0) + 1_500).toISOString()}`,
          "sink mem delivering again after 1.5s; 3 records waited"
        ])
      })
    ).pipe(
      Effect.provide(
        Logger.layer([
          Logger.make(({ message, logLevel }) => {
            if (logLevel !== "Debug" && logLevel !== "Trace") lines.push([message].flat().map(String).join(" "))
          })
        ])
      )
    )
  })
})

describe("the webhook sink", () => {
  it.effect(
    "through the worker: signs each body, names the delivery, retries a 500, and dead-letters a 400 at once",
    () => {
      const received: Array<{ body: string; signature: string | undefined; delivery: string | undefined }> = []
      let flaky = 2
      return Effect.gen(function* () {
        const url = yield* serve((req, res) => {
          let body = ""
          req.on("data", (c) => {
            body += c
          })
          req.on("end", () => {
            const reference = JSON.parse(body).reference as string
            received.push({
              body,
              signature: req.headers["x-warden-signature"] as string | undefined,
              delivery: req.headers["x-warden-delivery"] as string | undefined
            })
            // "always-fails" is refused (a 400: retrying cannot help); "flaky" meets a 500 twice.
            res.writeHead(reference === "always-fails" ? 400 : reference === "flaky" && flaky-- > 0 ? 500 : 204)
            res.end()
          })
        })
        const sink = WebhookSink.make({
          name: "hook",
          url: `${url}/hook`,
          secret: Redacted.make("hook-secret")
        })
        yield* draining(sink, (outbox) =>
          Effect.gen(function* () {
            // The waits are the worker's (above): the clock moves past each retry once the attempt before it is recorded.
            for (const [attempts, at] of [
              [1, 0],
              [2, 500]
            ] as const) {
              yield* outbox.at(at)
              yield* eventually(
                Effect.map(outbox.left, (left) => left.join() === `flaky:${attempts}`),
                `attempt ${attempts} recorded`
              )
            }
            yield* outbox.at(1_500)
            yield* eventually(
              Effect.map(outbox.left, (left) => left.length === 0),
              "the outbox empty"
            )
            assert.deepStrictEqual(yield* outbox.dead, [
              { reference: "always-fails", attempts: 1, last_error: "HTTP 400: the receiver refused the record" }
            ])
          })
        )
        // Every body is signed with HMAC-SHA256 of its exact bytes and names its delivery.
        for (const r of received) {
          assert.strictEqual(r.signature, `sha256=${createHmac("sha256", "hook-secret").update(r.body).digest("hex")}`)
          assert.strictEqual(r.delivery, `s/${JSON.parse(r.body).reference}/1`)
        }
        const deliveries = (reference: string) => received.filter((r) => r.delivery === `s/${reference}/1`).length
        assert.deepStrictEqual(["ok", "flaky", "always-fails"].map(deliveries), [1, 3, 1])
      }).pipe(Effect.scoped)
    }
  )
})

describe("the stdout sink", () => {
  it("prints one readable line per verdict on a terminal", () => {
    const line = StdoutSink.prettyLine({ ...verdictRecord("rss:f/1"), text: "you idiot" }, false)
    assert.include(line, "REMOVE")
    assert.include(line, "INSULT")
    assert.include(line, "rss:f/1 v1")
    assert.include(line, '"you idiot"')
  })

  it("says what was done apart from what the API recommends, under a column header", () => {
    const header = StdoutSink.prettyHeader(false)
    const column = (line: string, name: string) => line.slice(header.indexOf(name)).split(/\s{2,}| (?=\S+ rss:)/u)[0]
    assert.match(header, /^RECOMMENDED\s+SEVERITY\s+TYPE\s+CLASSIFICATIONS\s+LANG\s+DONE\s+ITEM$/u)
    // No rule matched: nothing was done, whatever the API recommends.
    const untouched = StdoutSink.prettyLine(verdictRecord("rss:f/1"), false)
    assert.strictEqual(column(untouched, "RECOMMENDED"), "REMOVE")
    assert.strictEqual(column(untouched, "DONE"), "-")
    const acted = StdoutSink.prettyLine({ ...verdictRecord("rss:f/2"), rule: "threats", actions: ["hide"] }, false)
    assert.strictEqual(column(acted, "DONE"), "hide")
    const dry = StdoutSink.prettyLine(
      { ...verdictRecord("rss:f/3"), rule: "threats", actions: ["hide"], dryRun: true },
      false
    )
    assert.strictEqual(column(dry, "DONE"), "hide (dry run)")
    const routed = StdoutSink.prettyLine({ ...verdictRecord("rss:f/4"), rule: "to-webhook" }, false)
    assert.strictEqual(column(routed, "DONE"), "rule to-webhook")
  })
})
