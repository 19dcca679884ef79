/**
 * The retention sweep runs in the background on its schedule (engine/Retention.ts), on the TestClock:
 * at start nothing is old enough; as time passes, a version recorded longer ago than the retention is
 * erased and a newer one kept, without any real waiting.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { sqlLayer } from "../src/Daemon.ts"
import * as Retention from "../src/engine/Retention.ts"
import { Erasure } from "../src/state/Erasure.ts"
import { DecisionStore } from "../src/state/DecisionStore.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { itemRecord } from "./support/ItemRecords.ts"

const HOUR = 3_600_000

const item = (reference: string, createdAt: number) =>
  itemRecord("s", reference, 1, {
    request: JSON.stringify({ text: `text of ${reference}` }),
    event: JSON.stringify({ reference, content: { type: "text", text: `text of ${reference}` } }),
    createdAt
  })

describe("retention", () => {
  it("the sweep interval is 1/24 of the shortest retention, between a minute and an hour; none without retention", () => {
    assert.strictEqual(Retention.intervalOf([{ id: "a", retentionMillis: undefined }]), undefined)
    const of = (ms: number) => Duration.toMillis(Retention.intervalOf([{ id: "a", retentionMillis: ms }])!)
    assert.strictEqual(of(30 * 24 * HOUR), HOUR)
    assert.strictEqual(of(24 * HOUR), HOUR)
    assert.strictEqual(of(6 * HOUR), 15 * 60_000)
    assert.strictEqual(of(10 * 60_000), 60_000)
  })

  it.effect("erases a version once it is older than the retention, on the sweep's schedule, and keeps newer ones", () =>
    Effect.gen(function* () {
      const items = yield* ItemStore
      const decisions = yield* DecisionStore
      yield* items.recordItems([
        { item: item("old", 1_000), sinks: [], payload: "{}" },
        { item: item("new", 3 * HOUR), sinks: [], payload: "{}" }
      ])
      const requests = Effect.map(decisions.decisions({ limit: 10 }), (rows) =>
        Object.fromEntries(rows.map((r) => [r.reference, r.request === null ? "erased" : "kept"]))
      )
      yield* Layer.build(Retention.layer([{ id: "s", retentionMillis: 2 * HOUR }]))
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(yield* requests, { old: "kept", new: "kept" })
      // at 2h + one interval (5 minutes) the first version is older than 2 hours
      yield* TestClock.adjust("70 minutes")
      assert.deepStrictEqual(yield* requests, { old: "erased", new: "kept" })
      yield* TestClock.adjust("2 hours")
      assert.deepStrictEqual(yield* requests, { old: "erased", new: "kept" })
      yield* TestClock.adjust("3 hours")
      assert.deepStrictEqual(yield* requests, { old: "erased", new: "erased" })
    }).pipe(
      Effect.provide(
        Erasure.layer.pipe(
          Layer.provideMerge(StateStore.layer),
          Layer.provideMerge(
            sqlLayer({ _tag: "sqlite", filename: join(mkdtempSync(join(tmpdir(), "warden-ret-")), "s.db") })
          )
        )
      ),
      Effect.scoped
    )
  )

  it.effect("keeps what can still be appealed (acted on, or sent to review) until the appeal window has passed", () =>
    Effect.gen(function* () {
      const items = yield* ItemStore
      const decisions = yield* DecisionStore
      const hide = { seq: 0, rule: "r", kind: "hide", params: undefined, reason: undefined, status: "pending" } as const
      const review = (reference: string) => ({
        source: "s",
        reference,
        version: 1,
        rule: "r",
        verdictType: "HATEFUL",
        severityRank: 40,
        authorKey: undefined,
        createdAt: 1_000
      })
      yield* items.recordItems([
        { item: item("plain", 1_000), sinks: [], payload: "{}" },
        { item: item("acted", 1_000), sinks: [], payload: "{}", actions: [hide] },
        { item: item("reviewed", 1_000), sinks: [], payload: "{}", review: review("reviewed") }
      ])
      const requests = Effect.map(decisions.decisions({ limit: 10 }), (rows) =>
        Object.fromEntries(rows.map((r) => [r.reference, r.request === null ? "erased" : "kept"]))
      )
      yield* Layer.build(Retention.layer([{ id: "s", retentionMillis: 2 * HOUR, appealWindowMillis: 24 * HOUR }]))
      yield* TestClock.adjust("3 hours")
      assert.deepStrictEqual(yield* requests, { plain: "erased", acted: "kept", reviewed: "kept" })
      yield* TestClock.adjust("22 hours")
      assert.deepStrictEqual(yield* requests, { plain: "erased", acted: "erased", reviewed: "erased" })
    }).pipe(
      Effect.provide(
        Erasure.layer.pipe(
          Layer.provideMerge(StateStore.layer),
          Layer.provideMerge(
            sqlLayer({ _tag: "sqlite", filename: join(mkdtempSync(join(tmpdir(), "warden-ret-")), "s.db") })
          )
        )
      ),
      Effect.scoped
    )
  )
})
