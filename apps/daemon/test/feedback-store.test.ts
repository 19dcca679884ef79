/**
 * Every feedback attempt is kept: two attempts of one origin on one item version in the same
 * millisecond (a failed send and its resend in one tick, or two runners) are two rows, not one.
 */
import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { describe, expect } from "vitest"
import { sqlLayer } from "../src/Daemon.ts"
import { FeedbackStore } from "../src/state/FeedbackStore.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { stateBackends } from "./support/StateBackends.ts"

const attempt = (status: "sent" | "failed") => ({
  source: "s",
  reference: "r/1",
  version: 1,
  origin: "manual",
  feedbackId: status === "sent" ? "f-1" : undefined,
  request: JSON.stringify({ analyzeRequest: { text: "t" } }),
  status,
  error: status === "failed" ? "UNAVAILABLE" : undefined
})

for (const [name, location] of stateBackends()) {
  describe(`feedback store on ${name}`, () => {
    it.effect("keeps three attempts recorded in one millisecond (the TestClock does not move)", () =>
      Effect.gen(function* () {
        const state = yield* Effect.promise(location)
        yield* Effect.gen(function* () {
          const store = yield* FeedbackStore
          yield* store.recordFeedback(attempt("failed"))
          yield* Effect.all([store.recordFeedback(attempt("failed")), store.recordFeedback(attempt("sent"))], {
            concurrency: "unbounded"
          })
          const entries = yield* store.feedbackOf("r/1")
          expect(entries.map((e) => e.status).sort()).toEqual(["failed", "failed", "sent"])
          expect(yield* store.hasFeedback("s", "r/1", 1, "manual")).toBe(true)
        }).pipe(Effect.provide(StateStore.layer.pipe(Layer.provideMerge(sqlLayer(state)))))
      })
    )
  })
}
