import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import { TestClock } from "effect/testing"
import { QuotaBudget } from "../src/index.ts"

const at = (iso: string) => TestClock.setTime(Date.parse(iso))

describe("QuotaBudget", () => {
  it("the next reset is midnight Pacific, across daylight saving changes", () => {
    // PST (UTC-8) and PDT (UTC-7).
    assert.strictEqual(
      new Date(QuotaBudget.nextPacificMidnight(Date.parse("2025-01-15T20:00:00Z"))).toISOString(),
      "2025-01-16T08:00:00.000Z"
    )
    assert.strictEqual(
      new Date(QuotaBudget.nextPacificMidnight(Date.parse("2025-07-15T06:59:59Z"))).toISOString(),
      "2025-07-15T07:00:00.000Z"
    )
    // 2025-03-09: clocks go forward at 2am; the day starts in PST and the next one in PDT.
    assert.strictEqual(
      new Date(QuotaBudget.nextPacificMidnight(Date.parse("2025-03-09T12:00:00Z"))).toISOString(),
      "2025-03-10T07:00:00.000Z"
    )
    // 2025-11-02: clocks go back at 2am.
    assert.strictEqual(
      new Date(QuotaBudget.nextPacificMidnight(Date.parse("2025-11-02T12:00:00Z"))).toISOString(),
      "2025-11-03T08:00:00.000Z"
    )
    assert.strictEqual(QuotaBudget.pacificDay(Date.parse("2025-01-16T07:59:59Z")), "2025-01-15")
    assert.strictEqual(QuotaBudget.pacificDay(Date.parse("2025-01-16T08:00:00Z")), "2025-01-16")
  })

  it.effect("spending counts down and resets at midnight Pacific; the gauge follows", () =>
    Effect.gen(function* () {
      yield* at("2025-01-16T07:59:58Z") // 23:59:58 PST
      const budget = QuotaBudget.make({ dailyQuota: 10_000, reserve: 1000, label: "reset-test" }, undefined)
      yield* budget.spend(1)
      yield* budget.spend(50)
      assert.strictEqual(yield* budget.remaining, 9949)
      assert.strictEqual(yield* budget.availableForPolling, 8949)
      const gauge = Metric.withAttributes(QuotaBudget.remainingGauge, { source: "reset-test" })
      assert.strictEqual((yield* Metric.value(gauge)).value, 9949)
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual(yield* budget.remaining, 10_000)
      assert.strictEqual((yield* Metric.value(gauge)).value, 10_000)
      assert.deepStrictEqual(yield* budget.snapshot, { day: "2025-01-16", used: 0 })
    })
  )

  it.effect("the poll interval stretches so the budget lasts until the reset, reserve kept", () =>
    Effect.gen(function* () {
      yield* at("2025-01-16T08:00:00Z") // midnight PST: 24 hours to the reset
      const budget = QuotaBudget.make({ dailyQuota: 10_000, reserve: 1000, label: "adaptive" }, undefined)
      // 9000 units for polling at 10 units a poll: 900 polls in 86,400 s -> one every 96 s.
      assert.strictEqual(yield* budget.nextDelay(60_000, 10), 96_000)
      // A cheaper poll: the configured minimum wins.
      assert.strictEqual(yield* budget.nextDelay(60_000, 1), 60_000)
      // Only the reserve left: wait for the reset.
      yield* budget.spend(9000)
      assert.strictEqual(yield* budget.nextDelay(60_000, 10), 86_400_000)
      yield* budget.exhaust
      assert.strictEqual(yield* budget.remaining, 0)
    })
  )

  it.effect("a checkpoint of the same day restores what was spent; of another day it is ignored", () =>
    Effect.gen(function* () {
      yield* at("2025-01-16T20:00:00Z")
      const budget = QuotaBudget.make({ dailyQuota: 10_000, reserve: 0, label: "restore" }, undefined)
      yield* budget.restore({ day: "2025-01-15", used: 5000 })
      assert.strictEqual(yield* budget.remaining, 10_000)
      yield* budget.restore({ day: "2025-01-16", used: 700 })
      assert.strictEqual(yield* budget.remaining, 9300)
    })
  )
})
