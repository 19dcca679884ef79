/**
 * The typed error of making a sink: it could not start (a file it cannot open, a server it cannot
 * reach at all, a config its schema accepts but its target refuses). `setting` names the config field
 * at fault (`sinks[2].path`) when one is.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** A sink could not be made. */
export class SinkError extends Schema.TaggedError<SinkError>()("SinkError", {
  /** The sink's type. */
  sink: Schema.String,
  message: Schema.String,
  /** The config path of the field at fault, as the host names it (`sinks[2].path`). */
  setting: Schema.optionalKey(Schema.String),
  /** The underlying error (a system error with its `code` and `path`), for the host to describe. */
  cause: Schema.optionalKey(Schema.Unknown)
}) {}
