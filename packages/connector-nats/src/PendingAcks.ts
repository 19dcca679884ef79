/**
 * The messages a source delivered to the daemon and has not acknowledged yet, in delivery order: the
 * daemon's stream order. `acknowledgeThrough(seq)` acks every one delivered up to the message at
 * stream sequence `seq` (the daemon recorded them all), `releaseAll` naks the rest when the source
 * stops, so that the next start gets them again at once rather than after `ackWait`.
 *
 * Bounded by the consumer's `max_ack_pending`: the server delivers no more while that many wait.
 *
 * @since 0.1.0
 */

/** What is kept of a delivered message: its stream sequence and its ack/nak. */
export interface Delivered {
  readonly seq: number
  readonly ack: () => void
  readonly nak: () => void
}

/** The delivered, unacknowledged messages of one connection. */
export interface PendingAcks {
  /**
   * Keeps `message` until it is acknowledged; `false` when a message of the same stream sequence is
   * kept already (the server delivered it again while the daemon still works on it: `ackWait` passed).
   */
  readonly hold: (message: Delivered) => boolean
  /** Acks every kept message delivered up to the one of stream sequence `seq`; 0 when none is kept. */
  readonly acknowledgeThrough: (seq: number) => number
  /** Naks every kept message and forgets them. */
  readonly releaseAll: () => void
  /** How many are kept. */
  readonly size: () => number
}

/** A failed ack or nak (the connection is gone): the server delivers the message again after `ackWait`. */
const attempt = (f: () => void): void => {
  try {
    f()
  } catch {
    // nothing to do: redelivery covers it, and the daemon's dedupe makes the repeat free
  }
}

/** An empty set of pending acks. */
export const make = (): PendingAcks => {
  // A queue in delivery order (`head` is the oldest still kept) and each kept sequence's position in it.
  let queue: Array<Delivered | undefined> = []
  let head = 0
  const positions = new Map<number, number>()

  const compact = () => {
    if (head < 1024 || head * 2 < queue.length) return
    queue = queue.slice(head)
    for (const [seq, at] of positions) positions.set(seq, at - head)
    head = 0
  }

  return {
    hold: (message) => {
      if (positions.has(message.seq)) return false
      positions.set(message.seq, queue.length)
      queue.push(message)
      return true
    },
    acknowledgeThrough: (seq) => {
      const at = positions.get(seq)
      if (at === undefined) return 0
      const count = at - head + 1
      for (let i = head; i <= at; i++) {
        const message = queue[i]!
        queue[i] = undefined
        positions.delete(message.seq)
        attempt(message.ack)
      }
      head = at + 1
      compact()
      return count
    },
    releaseAll: () => {
      for (let i = head; i < queue.length; i++) attempt(queue[i]!.nak)
      queue = []
      head = 0
      positions.clear()
    },
    size: () => positions.size
  }
}
