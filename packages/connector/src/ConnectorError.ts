/**
 * The one error type of a source's `events` stream and of `Connector.make`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * Known reasons; any other string is allowed (connectors may be more specific).
 * - `InvalidConfig`: the decoded config cannot work (bad URL scheme, missing permission scope).
 * - `InvalidCheckpoint`: the checkpoint given to `events` is not one this connector wrote.
 * - `Unavailable`: the upstream is down and the connector gave up retrying.
 * - `Unauthorized`: credentials rejected; retrying will not help.
 * - `RateLimited`, `Timeout`, `InvalidResponse`: upstream trouble, usually retried inside first.
 * - `Internal`: a bug in the connector, reported as a value rather than a defect.
 */
export const ConnectorErrorReason = Schema.Union([
  Schema.Literals([
    "InvalidConfig",
    "InvalidCheckpoint",
    "Unavailable",
    "Unauthorized",
    "RateLimited",
    "Timeout",
    "InvalidResponse",
    "Internal"
  ]),
  Schema.String
])
/** @see {@link ConnectorErrorReason} */
export type ConnectorErrorReason = typeof ConnectorErrorReason.Type

/**
 * A source or connector failure the daemon can act on: `retryable: true` means restarting the source
 * later may succeed. `source` names the connector instance (e.g. `rss`), `cause` is the underlying
 * message. Never put secrets (tokens, URL credentials) into any field.
 */
export class ConnectorError extends Schema.TaggedError<ConnectorError>()("ConnectorError", {
  source: Schema.String,
  reason: ConnectorErrorReason,
  retryable: Schema.Boolean,
  message: Schema.String,
  cause: Schema.optionalKey(Schema.String)
}) {}

/** Removes user info (`user:password@`) and the query string from a URL, for use in messages. */
export const redactUrl = (url: string | URL): string => {
  try {
    const u = new URL(url)
    u.username = ""
    u.password = ""
    const hadQuery = u.search !== ""
    u.search = ""
    u.hash = ""
    return hadQuery ? `${u.toString()}?…` : u.toString()
  } catch {
    return "<invalid url>"
  }
}
