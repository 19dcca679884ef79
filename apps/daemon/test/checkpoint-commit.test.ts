/**
 * What follows an acknowledged batch, on the TestClock (engine/CheckpointCommit.ts): the checkpoint
 * stored as JSON; the source's acknowledge failing logged once and never failing the source; the purge
 * sparing every send still in flight, giving space back at most once a minute, and never failing; a
 * push source's purge (its batches not persisted) once a minute.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, Ref } from "effect"
import { TestClock } from "effect/testing"
import * as CheckpointCommit from "../src/engine/CheckpointCommit.ts"
import { partsLayer } from "./support/SourceParts.ts"

/** Tables that record the purges (`sentBefore` of each) and the reclaims, failing while `failing`. */
const recordingTables = () => {
  const calls = { purges: [] as Array<{ ids: ReadonlyArray<string>; sentBefore: number }>, reclaims: 0, failing: false }
  const tables: CheckpointCommit.Tables<never> = {
    purgeProcessed: (ids, sentBefore) =>
      calls.failing
        ? Effect.fail(new Error("cluster_messages is locked"))
        : Effect.sync(() => {
            calls.purges.push({ ids, sentBefore })
            return 1
          }),
    reclaimSpace: () =>
      Effect.sync(() => {
        calls.reclaims++
      })
  }
  return { calls, tables }
}

/** The log lines `effect` wrote. */
const logged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const logger = Logger.make(({ message }) => {
      lines.push(String(Array.isArray(message) ? message[0] : message))
    })
    const result = yield* effect.pipe(Effect.provide(Logger.layer([logger])))
    return { result, lines }
  })

const commitsWith = (options: {
  readonly oldestInFlight?: number
  readonly tables: CheckpointCommit.Tables<never>
  readonly itemsWaitIn?: "upstream" | "intake"
}) =>
  Effect.gen(function* () {
    const stored: Array<{ readonly text: string; readonly durable: boolean }> = []
    const commits = yield* CheckpointCommit.make({
      id: "src",
      partitions: 2,
      checkpoints: {
        commitCheckpoint: (_, text, durable) => Effect.sync(() => void stored.push({ text, durable: durable ?? true }))
      },
      oldestInFlight: Effect.succeed(options.oldestInFlight ?? 0),
      tables: options.tables,
      itemsWaitIn: options.itemsWaitIn ?? "upstream"
    })
    return { commits, stored }
  })

describe("CheckpointCommit", () => {
  it.effect("stores the checkpoint as JSON text, warning once when it is above the contract's size", () =>
    Effect.gen(function* () {
      const { commits, stored } = yield* commitsWith({ tables: recordingTables().tables })
      const large = { cursor: "x".repeat(20_000) }
      const { lines } = yield* logged(
        Effect.all([commits.store({ seq: 1 }), commits.store(large), commits.store(large)])
      )
      assert.deepStrictEqual(stored[0], { text: '{"seq":1}', durable: true })
      assert.strictEqual(stored.length, 3)
      assert.strictEqual(lines.filter((l) => l.startsWith("checkpoint of")).length, 1)
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("purges what was sent before the oldest send in flight, of every partition", () =>
    Effect.gen(function* () {
      const { calls, tables } = recordingTables()
      yield* TestClock.adjust("10 seconds")
      const { commits } = yield* commitsWith({ oldestInFlight: 4_000, tables })
      yield* commits.purge
      assert.deepStrictEqual(calls.purges, [{ ids: ["src/0", "src/1", "src/2", "src/3"], sentBefore: 4_000 }])
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("gives space back at most once a minute", () =>
    Effect.gen(function* () {
      const { calls, tables } = recordingTables()
      const { commits } = yield* commitsWith({ tables })
      yield* commits.purge
      yield* TestClock.adjust("59 seconds")
      yield* commits.purge
      assert.strictEqual(calls.reclaims, 0, "not within the first minute")
      yield* TestClock.adjust("1 second")
      yield* commits.purge
      yield* commits.purge
      assert.strictEqual(calls.reclaims, 1)
      assert.strictEqual(calls.purges.length, 4, "a purge after every commit")
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a source whose items wait in the intake commits without an fsync of its own", () =>
    Effect.gen(function* () {
      const { commits, stored } = yield* commitsWith({ tables: recordingTables().tables, itemsWaitIn: "intake" })
      yield* commits.store({ seq: 7 })
      assert.deepStrictEqual(stored, [{ text: '{"seq":7}', durable: false }])
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a source whose items wait in the intake purges at its first commit, then once a minute", () =>
    Effect.gen(function* () {
      const { calls, tables } = recordingTables()
      const { commits } = yield* commitsWith({ tables, itemsWaitIn: "intake" })
      yield* commits.purge
      assert.strictEqual(calls.purges.length, 1, "what an older daemon persisted, at the first commit")
      yield* TestClock.adjust("59 seconds")
      yield* commits.purge
      yield* commits.purge
      assert.strictEqual(calls.purges.length, 1, "not at every commit")
      yield* TestClock.adjust("1 second")
      yield* commits.purge
      yield* commits.purge
      assert.strictEqual(calls.purges.length, 2)
      assert.strictEqual(calls.reclaims, 1)
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a failed purge is logged once a minute and never fails the commit", () =>
    Effect.gen(function* () {
      const { calls, tables } = recordingTables()
      calls.failing = true
      const { commits } = yield* commitsWith({ tables })
      const { lines } = yield* logged(Effect.all([commits.purge, commits.purge, commits.purge]))
      assert.deepStrictEqual(lines, ["purging processed batch messages failed"])
    }).pipe(Effect.provide(partsLayer))
  )

  it.effect("a source's failed acknowledge is logged once per start and never fails", () =>
    Effect.gen(function* () {
      const { commits } = yield* commitsWith({ tables: recordingTables().tables })
      const acks = yield* Ref.make(0)
      const source = {
        acknowledge: () =>
          Effect.andThen(
            Ref.update(acks, (n) => n + 1),
            Effect.die(new Error("bus gone"))
          )
      }
      const first = commits.acknowledger(source)
      const { lines } = yield* logged(Effect.all([first({ seq: 1 }), first({ seq: 2 })]))
      assert.strictEqual(yield* Ref.get(acks), 2, "each checkpoint acknowledged")
      assert.deepStrictEqual(lines, ["the source's acknowledge failed (logged once)"])
      const again = yield* logged(commits.acknowledger(source)({ seq: 3 }))
      assert.strictEqual(again.lines.length, 1, "logged again at the next start")
      yield* commits.acknowledger({})({ seq: 4 }) // a source without acknowledge
    }).pipe(Effect.provide(partsLayer))
  )
})
