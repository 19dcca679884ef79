/**
 * The checkpoint of a NATS source: the stream sequence of the event's message, `{ v: 1, seq }`.
 *
 * The durable consumer on the server is where a restart resumes (it delivers again what was not
 * acknowledged), so the checkpoint does not position anything: it names the message the daemon has
 * recorded everything up to, which `acknowledge` acks up to, and it shows the source's progress.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The checkpoint, version 1. */
export const Checkpoint = Schema.Struct({
  v: Schema.Literal(1),
  seq: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
})
/** @see {@link Checkpoint} */
export type Checkpoint = typeof Checkpoint.Type

/** The checkpoint of the message at stream sequence `seq`. */
export const at = (seq: number): Checkpoint => ({ v: 1, seq })

/** Decodes a checkpoint handed back by the daemon (`acknowledge`), or `undefined` when it is not one of ours. */
export const read = (input: unknown): Checkpoint | undefined => (Schema.is(Checkpoint)(input) ? input : undefined)
