/**
 * The intake of a source's events (engine/SourceIntake.ts): an event that fails its checks is
 * dead-lettered with its reference, field and reason and skipped; an `error` event is recorded and marks
 * the source; the item and `progress` events go on, in their order.
 */
import { assert, describe, it } from "@effect/vitest"
import type { SourceEvent } from "@warden/connector"
import { Effect, Schema } from "effect"
import * as SourceIntake from "../src/engine/SourceIntake.ts"
import type { SourceDeadLetterInput } from "../src/state/SourceErrorStore.ts"
import { partsLayer, stateOf } from "./support/SourceParts.ts"

/** Events as a connector may emit them, whatever they hold (a plugin's stream is not checked by types). */
const asEvents = Schema.decodeUnknownSync(Schema.Array(Schema.Any))

const recording = () => {
  const recorded = { deadLetters: [] as Array<SourceDeadLetterInput>, errors: [] as Array<string> }
  return {
    recorded,
    store: {
      recordSourceDeadLetter: (letter: SourceDeadLetterInput) =>
        Effect.sync(() => void recorded.deadLetters.push(letter)),
      recordSourceError: (_: string, reason: string, message: string) =>
        Effect.sync(() => void recorded.errors.push(`${reason}: ${message}`))
    }
  }
}

describe("SourceIntake", () => {
  it.effect("dead-letters what fails its checks, records error events, keeps the rest in order", () =>
    Effect.gen(function* () {
      const { recorded, store } = recording()
      const intake = yield* SourceIntake.make("src", store)
      const events: ReadonlyArray<SourceEvent.SourceEvent> = asEvents([
        { kind: "upsert", reference: "a", checkpoint: { seq: 1 }, content: { type: "text", text: "first" } },
        { kind: "upsert", reference: "x".repeat(300), checkpoint: { seq: 2 }, content: { type: "text", text: "long" } },
        { kind: "error", source: "src", reason: "Unavailable", message: "feed down", attempt: 1, retryInMillis: 1000 },
        { kind: "progress", checkpoint: { seq: 3 } },
        { kind: "delete", reference: "b", checkpoint: { seq: 4 } }
      ])
      const kept = yield* intake.sort(events)
      assert.deepStrictEqual(
        kept.map((e) => e.kind),
        ["upsert", "progress", "delete"]
      )
      assert.strictEqual(recorded.deadLetters.length, 1)
      assert.strictEqual(recorded.deadLetters[0]?.field, "reference")
      assert.strictEqual(recorded.deadLetters[0]?.reference, "x".repeat(300))
      assert.include(recorded.deadLetters[0]?.event, '"long"')
      assert.deepStrictEqual(recorded.errors, ["Unavailable: feed down"])
      const state = yield* stateOf("src")
      assert.strictEqual(state?.state, "upstream-error")
      assert.strictEqual(state?.reason, "feed down")
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("an event without a usable reference is dead-lettered as (none)", () =>
    Effect.gen(function* () {
      const { recorded, store } = recording()
      const intake = yield* SourceIntake.make("src", store)
      const kept = yield* intake.sort(asEvents([{ kind: "upsert", checkpoint: { big: 1n } }]))
      assert.strictEqual(kept.length, 0)
      assert.isAbove(recorded.deadLetters.length, 0)
      assert.isTrue(recorded.deadLetters.every((l) => l.reference === "(none)"))
      assert.include(recorded.deadLetters[0]?.event, '"1n"', "a BigInt written as text")
    }).pipe(Effect.provide(partsLayer))
  )

  it("names a problem's metric by its top field", () => {
    assert.strictEqual(SourceIntake.topField("checkpoint.cursor.seq"), "checkpoint")
    assert.strictEqual(SourceIntake.topField("content[0]"), "content")
    assert.strictEqual(SourceIntake.topField("reference"), "reference")
  })
})
