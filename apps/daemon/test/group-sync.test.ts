/**
 * The group fsync behind SQLite's durable commits (state/internal/GroupSync.ts): a caller that comes
 * while a sync runs waits for the next one, every caller in between shares that next one, and a
 * failed sync fails its own callers only.
 */
import { assert, describe, it } from "@effect/vitest"
import * as GroupSync from "../src/state/internal/GroupSync.ts"

/** A sync the test ends by hand: `started` counts the syncs begun, `finish(i, error?)` ends the i-th. */
const manualSync = () => {
  const ends: Array<(error?: Error) => void> = []
  const sync = GroupSync.make(
    () =>
      new Promise<void>((resolve, reject) => {
        ends.push((error) => (error === undefined ? resolve() : reject(error)))
      })
  )
  return {
    sync,
    started: () => ends.length,
    finish: (i: number, error?: Error) => ends[i]!(error)
  }
}

/** Lets the promise callbacks queued so far run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

/** Whether `p` has settled, and how. */
const stateOf = (p: Promise<void>) => {
  const state = { done: false, error: undefined as unknown }
  p.then(
    () => {
      state.done = true
    },
    (error) => {
      state.done = true
      state.error = error
    }
  )
  return state
}

describe("group fsync", () => {
  it("starts one sync for a caller alone, and a second only for those that came while the first ran", async () => {
    const s = manualSync()
    const first = stateOf(s.sync())
    assert.strictEqual(s.started(), 1)
    // Came while the first ran: that sync may have begun before their writes, so they wait for the next.
    const second = stateOf(s.sync())
    const third = stateOf(s.sync())
    await settle()
    assert.strictEqual(s.started(), 1)
    s.finish(0)
    await settle()
    assert.isTrue(first.done)
    assert.isFalse(second.done)
    assert.isFalse(third.done)
    assert.strictEqual(s.started(), 2)
    s.finish(1)
    await settle()
    assert.isTrue(second.done && third.done)
    // Nothing runs now: the next caller starts a sync of its own at once.
    const fourth = stateOf(s.sync())
    assert.strictEqual(s.started(), 3)
    s.finish(2)
    await settle()
    assert.isTrue(fourth.done)
  })

  it("fails only the callers of a failed sync; those waiting for the next one get theirs", async () => {
    const s = manualSync()
    const first = stateOf(s.sync())
    const second = stateOf(s.sync())
    s.finish(0, new Error("EIO"))
    await settle()
    assert.strictEqual((first.error as Error).message, "EIO")
    assert.strictEqual(s.started(), 2)
    s.finish(1)
    await settle()
    assert.isTrue(second.done)
    assert.isUndefined(second.error)
  })
})
