/**
 * The resume position of a source: an opaque JSON value chosen by the connector.
 *
 * The daemon stores it as JSON text once per batch (the checkpoint of the batch's last event), after
 * every verdict of the batch is durable, and passes it back to `events(Option.some(checkpoint))` on
 * restart. Connectors must accept every checkpoint they ever emitted (version it, e.g. `{ v: 1, ... }`).
 *
 * The contract on its size and content:
 * - **Small**: at most {@link maxBytes} as JSON text, and it does not grow with the feed's history.
 *   What belongs in it: cursors (a high-water mark, a page token, the last message id per channel),
 *   HTTP validators (`ETag`, `Last-Modified`), and state bounded by the configuration (one cursor per
 *   configured feed or channel).
 * - **No dedupe state**: the set or map of items already seen does not belong in it. The daemon keeps
 *   every item's reference and content hash and drops an event it has already analysed (an edit,
 *   a changed content hash, is analysed again). A connector may remember what it emitted in memory,
 *   bounded, to avoid re-emitting a window at every poll; after a restart it re-emits from its cursor
 *   and the daemon dedupes (declare `duplicates: "possible"`).
 * - **Shared, not copied**: the events of one poll may carry the same checkpoint object; the daemon
 *   never persists it per event.
 *
 * The conformance kit's `boundedCheckpoint` check fails a checkpoint that grows with the items emitted.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema } from "effect"
import { ConnectorError } from "./ConnectorError.ts"

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

/** The largest checkpoint the contract allows, as UTF-8 JSON text (4 KiB); the daemon warns above it. */
export const maxBytes = 4096

/** The size of a checkpoint as the daemon stores it (UTF-8 bytes of its JSON text). */
export const byteLength = (checkpoint: Checkpoint): number => Buffer.byteLength(toJsonText(checkpoint), "utf8")

/** Where a checkpoint is not JSON: the path from its root (`checkpoint.cursor.seq`) and what was found there. */
export interface NonJson {
  readonly path: string
  readonly message: string
}

/**
 * Where a value is not JSON (a BigInt, `undefined`, NaN, a function, a Date's prototype...), as a
 * path from the checkpoint's root with what was found; `undefined` when it is plain JSON. Says which
 * field broke a checkpoint the daemon cannot store.
 */
export const findNonJson = (value: unknown, path = "checkpoint"): NonJson | undefined => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined
  if (typeof value === "number")
    return Number.isFinite(value) ? undefined : { path, message: `${value} is not a JSON number` }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNonJson(value[i], `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null)
      return { path, message: `a ${value.constructor?.name ?? "class instance"} is not a plain JSON object` }
    for (const [key, v] of Object.entries(value)) {
      const found = findNonJson(v, `${path}.${key}`)
      if (found !== undefined) return found
    }
    return undefined
  }
  return { path, message: `a ${typeof value} is not JSON` }
}

/**
 * Decodes the checkpoint the daemon hands back to `events(from)` with the connector's own schema;
 * a checkpoint that does not decode fails with a `ConnectorError` of reason `InvalidCheckpoint`
 * (not retryable: the daemon pauses the source, `warden source checkpoint reset` is the way out),
 * naming the field. `Option.none()` (no checkpoint yet) decodes to `Option.none()`.
 *
 * ```ts
 * const start = yield* Checkpoint.decode(Position, "json-poll")(from)   // Option<{ after: number }>
 * ```
 */
export const decode =
  <A>(schema: Schema.Codec<A, any, never, never>, source: string) =>
  (from: Option.Option<Checkpoint>): Effect.Effect<Option.Option<A>, ConnectorError> =>
    Option.isNone(from)
      ? Effect.succeedNone
      : Schema.decodeUnknownEffect(schema, { errors: "all" })(from.value).pipe(
          Effect.map(Option.some),
          Effect.mapError(
            (error) =>
              new ConnectorError({
                source,
                reason: "InvalidCheckpoint",
                retryable: false,
                message: `the stored checkpoint is not one this connector writes: ${error.message}`
              })
          )
        )
