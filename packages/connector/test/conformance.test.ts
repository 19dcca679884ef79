import { assert, describe, it } from "@effect/vitest"
import { type Checkpoint, Connector, type ConnectorError, SourceEvent } from "@warden/connector"
import { Conformance } from "@warden/connector/testing"
import { Effect, Logger, Option, Stream } from "effect"
import { connector as changelog } from "../examples/ChangeLogConnector.ts"
import { connector as example } from "../examples/JsonPollConnector.ts"
import * as ChangeLogUpstream from "./fixtures/ChangeLogUpstream.ts"
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

  it.live("a check with nothing to drive says it did not run, rather than passing in silence", () =>
    Effect.gen(function* () {
      const logged: Array<string> = []
      // the JSON upstream has no edit/remove: editsAndDeletes cannot drive anything
      yield* Conformance.editsAndDeletes(options(example)).pipe(
        Effect.provide(Logger.layer([Logger.make((o) => logged.push(String(o.message)))]))
      )
      assert.deepStrictEqual(logged, ["conformance: editsAndDeletes did not run: the driver has no edit and remove"])
    })
  )

  it.live("a defect while the upstream is down", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(Conformance.upstreamDown(options(crashing)))
      assert.include(failure.message, "defect")
    })
  )
})

/** The change-log example with its stream rewritten by `f` (and `act` kept unless `dropAct`). */
const changed = (
  f: (
    events: Stream.Stream<SourceEvent.SourceEvent, ConnectorError.ConnectorError>
  ) => Stream.Stream<SourceEvent.SourceEvent, ConnectorError.ConnectorError>,
  dropAct = false
) =>
  Connector.make({
    ...changelog,
    make: (config) =>
      Effect.map(changelog.make(config), (source) => ({
        events: (from: Option.Option<Checkpoint.Checkpoint>) => f(source.events(from)),
        ...(dropAct || source.act === undefined ? {} : { act: source.act })
      }))
  })

/** Emits every event twice, while declaring duplicates "never". */
const stuttering = changed(Stream.flatMap((e) => Stream.make(e, e)))

/** The third item event carries the first one's checkpoint: a restart from it reads items 2 and 3 again. */
const backwards = changed((events) => {
  let n = 0
  let first: Checkpoint.Checkpoint | undefined
  return Stream.map(events, (e) => {
    if (!SourceEvent.isItemEvent(e)) return e
    n++
    if (n === 1) first = e.checkpoint
    return n === 3 ? { ...e, checkpoint: first! } : e
  })
})

/** Turns a delete into an upsert with empty text. */
const emptying = changed(
  Stream.map((e) =>
    e.kind === "delete" ? SourceEvent.upsertText({ reference: e.reference, checkpoint: e.checkpoint, text: "" }) : e
  )
)

/** Declares `actions: [hide]` but its source has no `act`. */
const actless = changed((events) => events, true)

const changelogOptions = (connector: Connector.Connector): Conformance.Options => ({
  connector,
  setup: ChangeLogUpstream.make,
  timeout: "3 seconds",
  settle: "300 millis"
})

/** Each mistake: the check that must catch it, the broken plugin, and what the failure must say. */
const mistakes: ReadonlyArray<{
  readonly name: string
  readonly check: keyof typeof Conformance.checks
  readonly broken: Conformance.Options
  readonly says: string
}> = [
  {
    name: "events emitted twice while declaring duplicates 'never'",
    check: "noDuplicates",
    broken: changelogOptions(stuttering),
    says: "changelog:1 twice"
  },
  {
    name: "checkpoints that go backwards",
    check: "checkpointsForward",
    broken: changelogOptions(backwards),
    says: "the checkpoint of changelog:3 goes backwards"
  },
  {
    name: "deletes turned into empty upserts",
    check: "editsAndDeletes",
    broken: changelogOptions(emptying),
    says: "expected a delete event, got an upsert"
  },
  {
    name: "actions declared with no act",
    check: "actions",
    broken: changelogOptions(actless),
    says: "declares actions [hide] but its source has no act"
  },
  {
    name: "a checkpoint that grows with the items seen (and the change log's stays small)",
    check: "boundedCheckpoint",
    broken: options(hoarding),
    says: "grows with the items seen"
  }
]

describe("conformance kit, each mistake fails a broken plugin and passes a correct one", () => {
  for (const { name, check, broken, says } of mistakes) {
    it.live(name, () =>
      Effect.gen(function* () {
        const failure = yield* Effect.flip(Conformance.checks[check](broken))
        assert.strictEqual(failure.check, check)
        assert.include(failure.message, says)
        yield* Conformance.checks[check](changelogOptions(changelog))
      })
    )
  }
})
