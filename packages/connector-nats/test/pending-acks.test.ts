import { assert, describe, it } from "@effect/vitest"
import { PendingAcks } from "../src/index.ts"

const delivered = (log: Array<string>, seq: number): PendingAcks.Delivered => ({
  seq,
  ack: () => log.push(`ack ${seq}`),
  nak: () => log.push(`nak ${seq}`)
})

describe("PendingAcks", () => {
  it("acks in delivery order up to the acknowledged message, whatever the stream sequences", () => {
    const log: Array<string> = []
    const pending = PendingAcks.make()
    // Redelivered older messages after newer ones (a restart): delivery order, not sequence order.
    for (const seq of [11, 12, 5, 6, 13]) assert.isTrue(pending.hold(delivered(log, seq)))
    assert.strictEqual(pending.acknowledgeThrough(12), 2)
    assert.deepStrictEqual(log, ["ack 11", "ack 12"])
    assert.strictEqual(pending.acknowledgeThrough(12), 0)
    assert.strictEqual(pending.acknowledgeThrough(6), 2)
    assert.deepStrictEqual(log.slice(2), ["ack 5", "ack 6"])
    assert.strictEqual(pending.size(), 1)
  })

  it("keeps one message per stream sequence, and naks the rest at release", () => {
    const log: Array<string> = []
    const pending = PendingAcks.make()
    assert.isTrue(pending.hold(delivered(log, 1)))
    assert.isFalse(pending.hold(delivered(log, 1)))
    pending.hold(delivered(log, 2))
    pending.releaseAll()
    assert.deepStrictEqual(log, ["nak 1", "nak 2"])
    assert.strictEqual(pending.size(), 0)
    assert.strictEqual(pending.acknowledgeThrough(2), 0)
  })

  it("stays correct over many acknowledgements (the queue is compacted)", () => {
    const log: Array<string> = []
    const pending = PendingAcks.make()
    for (let seq = 1; seq <= 5000; seq++) {
      pending.hold(delivered(log, seq))
      if (seq % 10 === 0) assert.strictEqual(pending.acknowledgeThrough(seq - 5), 5 + (seq === 10 ? 0 : 5))
    }
    assert.strictEqual(log.length, 4995)
    assert.strictEqual(log.at(-1), "ack 4995")
    assert.strictEqual(pending.size(), 5)
    // a thrower (the connection gone) does not stop the others
    const throwing = PendingAcks.make()
    throwing.hold({
      seq: 1,
      ack: () => {
        throw new Error("closed")
      },
      nak: () => {}
    })
    throwing.hold(delivered(log, 2))
    assert.strictEqual(throwing.acknowledgeThrough(2), 2)
    assert.strictEqual(log.at(-1), "ack 2")
  })
})
