import { assert, describe, it } from "@effect/vitest"
import { Connector } from "@warden/connector"
import { Conformance } from "@warden/connector/testing"
import { Effect, Option, Stream } from "effect"
import { connector as example } from "../examples/JsonPollConnector.ts"
import * as JsonUpstream from "./fixtures/JsonUpstream.ts"

// The kit must catch broken connectors, or its passes mean nothing.

/** Ignores the checkpoint it is given: resuming repeats everything. */
const forgetful = Connector.make({
  ...example,
  make: (config) => Effect.map(example.make(config), (source) => ({ events: () => source.events(Option.none()) }))
})

/** Leaves an interval running after its scope closed. */
const leaked: Array<ReturnType<typeof setInterval>> = []
const leaky = Connector.make({
  ...example,
  make: (config) =>
    Effect.map(example.make(config), (source) => {
      leaked.push(setInterval(() => {}, 60_000))
      return source
    })
})

/** Dies when the upstream is down. */
const crashing = Connector.make({
  ...example,
  make: (config) =>
    Effect.map(example.make(config), (source) => ({
      events: (from: Option.Option<unknown>) =>
        source.events(from as never).pipe(Stream.tap((e) => (e.kind === "error" ? Effect.die("boom") : Effect.void)))
    }))
})

/** Keeps every reference it emitted in its checkpoint: the checkpoint grows with the feed's history. */
const hoarding = Connector.make({
  ...example,
  make: (config) =>
    Effect.map(example.make(config), (source) => ({
      events: (from: Option.Option<unknown>) => {
        const seen: Array<string> = []
        const cursor = Option.map(from, (c) => (c as { cursor: unknown }).cursor)
        return source.events(cursor as never).pipe(
          Stream.map((e) => {
            if (e.kind === "error") return e
            seen.push(e.reference)
            return { ...e, checkpoint: { cursor: e.checkpoint, seen: [...seen] } }
          })
        )
      }
    }))
})

const options = (connector: Connector.Connector): Conformance.Options => ({
  connector,
  setup: JsonUpstream.make,
  timeout: "3 seconds"
})

describe("conformance kit catches", () => {
  it.live("duplicates after resume when duplicates is 'never'", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(Conformance.resume(options(forgetful)))
      assert.strictEqual(failure.check, "resume")
      assert.include(failure.message, "repeated json-poll:1")
    })
  )

  it.live("but accepts them when the connector declares duplicates 'possible'", () =>
    Conformance.resume(
      options(Connector.make({ ...forgetful, capabilities: { ...forgetful.capabilities, duplicates: "possible" } }))
    )
  )

  it.live("a timer left after shutdown", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(Conformance.cleanShutdown(options(leaky)))
      for (const t of leaked) clearInterval(t)
      assert.include(failure.message, "Timeout")
    })
  )

  it.live("a checkpoint that grows with the items seen", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(Conformance.boundedCheckpoint(options(hoarding)))
      assert.strictEqual(failure.check, "boundedCheckpoint")
      assert.include(failure.message, "grows with the items seen")
    })
  )

  it.live("a defect while the upstream is down", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(Conformance.upstreamDown(options(crashing)))
      assert.include(failure.message, "defect")
    })
  )
})
