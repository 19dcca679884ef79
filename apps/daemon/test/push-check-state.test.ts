/**
 * A check against records another runner wrote (PushIntake on a shared state, SQLite and PostgreSQL):
 * the same content recorded already is answered from its record at once, with nothing written to the
 * intake (no second analysis); a record written while a check waits, by a writer that announces nothing
 * in this process (another runner), is found by the check's own look within its deadline; an edit
 * recorded under the reference is not the checked content's decision.
 */
import { Effect, Fiber, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as ContentHash from "../src/engine/ContentHash.ts"
import * as PushIntake from "../src/engine/PushIntake.ts"
import { IntakeStore } from "../src/state/IntakeStore.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import { WriteSignals } from "../src/state/WriteSignals.ts"
import { itemRecord } from "./support/ItemRecords.ts"
import { pushSettings } from "./support/PushDecisions.ts"
import { onFreshState, stateBackends } from "./support/StateBackends.ts"

const settings = pushSettings("site", "http", "hold")

const text = (reference: string, body: string) => ({ reference, content: { type: "text" as const, text: body } })

/** The item version another runner's pipeline records for `body`: an insult its `insults` rule hid. */
const recorded = (reference: string, body: string, version = 1) => ({
  item: itemRecord("site", reference, version, {
    contentHash: ContentHash.of({ type: "text", text: body }),
    verdict: { type: "HATEFUL", classifications: ["INSULT"], severity: "HIGH", recommendedAction: "REMOVE" },
    rule: "insults"
  }),
  sinks: [],
  payload: "{}"
})

for (const [backend, fresh] of stateBackends()) {
  describe(`a check on ${backend}, against records of another runner`, () => {
    it(
      "answers recorded content at once without writing to the intake; finds a record written while it waits",
      () =>
        Effect.runPromise(
          onFreshState(
            fresh,
            Effect.gen(function* () {
              const items = yield* ItemStore
              const intake = yield* IntakeStore
              const host = yield* PushIntake.make(settings)
              yield* items.recordItems([recorded("c-1", "you idiot")])

              const started = Date.now()
              const known = yield* host.check(text("c-1", "you idiot"), 2_000)
              expect(known).toMatchObject({
                decision: "reject",
                rule: "insults",
                actions: ["hide"],
                decidedBy: "verdict"
              })
              expect(Date.now() - started).toBeLessThan(500)
              expect(yield* intake.after("site", 0, 10)).toEqual([])

              // written while the check waits, as another runner would (ring nothing in this process)
              const waiting = yield* Effect.forkChild(host.check(text("c-2", "you fool"), 3_000))
              yield* Effect.sleep("300 millis")
              // another runner: its own write signals, so nothing is announced to this process's checks
              const elsewhere = yield* Effect.provide(
                Effect.service(ItemStore),
                Layer.fresh(ItemStore.layer).pipe(Layer.provide(Layer.fresh(WriteSignals.layer)))
              )
              yield* elsewhere.recordItems([recorded("c-2", "you fool")])
              const found = yield* Fiber.join(waiting)
              expect(found).toMatchObject({ decision: "reject", decidedBy: "verdict", reference: "c-2" })
              // it was received once, for the pipeline (whose dedupe will find it recorded)
              expect(yield* intake.after("site", 0, 10)).toHaveLength(1)

              // a kind the source does not analyse: the failure mode at once, nothing received
              const started2 = Date.now()
              const username = yield* host.check(
                { reference: "u-1", content: { type: "username", username: "x" } },
                2_000
              )
              expect(username).toMatchObject({ decision: "review", decidedBy: "failureMode" })
              expect(Date.now() - started2).toBeLessThan(500)
              expect(yield* intake.after("site", 0, 10)).toHaveLength(1)

              // an edit recorded under the reference is not the checked content's decision: the deadline decides
              yield* items.recordItems([recorded("c-3", "a newer text", 2)])
              const other = yield* host.check(text("c-3", "the older text"), 200)
              expect(other).toMatchObject({ decision: "review", decidedBy: "failureMode", version: null })
            })
          )
        ),
      20_000
    )
  })
}
