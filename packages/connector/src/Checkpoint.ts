/**
 * The resume position of a source: an opaque JSON value chosen by the connector.
 *
 * The daemon stores it as JSON text after it has handled the event that carried it, and passes it
 * back to `events(Option.some(checkpoint))` on restart. Connectors must accept every checkpoint they
 * ever emitted (version it, e.g. `{ v: 1, ... }`).
 *
 * @since 0.1.0
 */
import { type Effect, Schema } from "effect"

/** Any JSON value (null, boolean, number, string, array, object). */
export const Checkpoint = Schema.Json.annotate({
  title: "Checkpoint",
  description: "Opaque, JSON-serialisable resume position of a source"
})
/** @see {@link Checkpoint} */
export type Checkpoint = Schema.Json

/** Serialises a checkpoint the way the daemon stores it. */
export const toJsonText = (checkpoint: Checkpoint): string => JSON.stringify(checkpoint)

/** Parses stored checkpoint text back; fails with a SchemaError when the text is not JSON. */
export const fromJsonText = Schema.decodeUnknownEffect(Schema.fromJsonString(Checkpoint))

/** Round-trips a checkpoint through JSON text, as a restart would (used by the conformance kit). */
export const roundTrip = (checkpoint: Checkpoint): Effect.Effect<Checkpoint, Schema.SchemaError> =>
  fromJsonText(toJsonText(checkpoint))
