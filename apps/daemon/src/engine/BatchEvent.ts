/**
 * A source event as the daemon persists it in a batch message: the event without its checkpoint.
 *
 * A connector attaches a checkpoint to every event it emits (in memory, usually the same object for
 * a whole poll); the pipeline commits the checkpoint of a batch's last event once, after the batch's
 * verdicts are durable. Copying it into each event's persisted cluster message would store it k
 * times per batch (issue 20: 54 KB per item on disk), so the entity's payload never carries it.
 */
import { SourceEvent } from "@warden/connector"
import { Schema, Struct } from "effect"

/** An upsert without its checkpoint. */
export const Upsert = SourceEvent.Upsert.mapFields(Struct.omit(["checkpoint"]))
/** @see {@link Upsert} */
export type Upsert = typeof Upsert.Type

/** A delete without its checkpoint. */
export const Delete = SourceEvent.Delete.mapFields(Struct.omit(["checkpoint"]))
/** @see {@link Delete} */
export type Delete = typeof Delete.Type

/** A moderator's reversal without its checkpoint. */
export const Reversal = SourceEvent.Reversal.mapFields(Struct.omit(["checkpoint"]))
/** @see {@link Reversal} */
export type Reversal = typeof Reversal.Type

/** A member's report without its checkpoint. */
export const Report = SourceEvent.Report.mapFields(Struct.omit(["checkpoint"]))
/** @see {@link Report} */
export type Report = typeof Report.Type

/** Any item event of a batch message. */
export const BatchEvent = Schema.Union([Upsert, Delete, Reversal, Report])
/** @see {@link BatchEvent} */
export type BatchEvent = typeof BatchEvent.Type

/** The event without its checkpoint (a shallow copy; the content is shared, not copied). */
export const fromSourceEvent = (event: SourceEvent.ItemEvent): BatchEvent => {
  const { checkpoint: _checkpoint, ...rest } = event
  return rest
}

/**
 * A batch's events as the JSON text of its persisted message. Every field is plain JSON (strings,
 * numbers, nested records), so `JSON.parse` gives back the same events.
 */
export const toText = (events: ReadonlyArray<BatchEvent>): string => JSON.stringify(events)

/** The events of a persisted message: JSON text (see {@link toText}), or an older daemon's array. */
export const fromPayload = (events: string | ReadonlyArray<BatchEvent>): ReadonlyArray<BatchEvent> =>
  typeof events === "string" ? (JSON.parse(events) as ReadonlyArray<BatchEvent>) : events
