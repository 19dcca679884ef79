/**
 * The config of an HTTP push source, decoded from the user's YAML:
 *
 * ```yaml
 * sources:
 *   - id: comments
 *     type: http
 *     channelId: 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c
 *     config:
 *       listen: 0.0.0.0:8788
 *       clients:
 *         - name: backend
 *           signingSecret: ${env:WARDEN_HTTP_BACKEND_SECRET}   # whsec_...
 *           rate: { perSecond: 50, burst: 100 }
 *         - name: php-forum
 *           bearer: ${file:/run/secrets/forum-token}
 *       check: { deadline: 2 seconds }
 * ```
 *
 * @since 0.1.0
 */
import { ConfigDuration, ConfigField } from "@warden/connector"
import { Effect, Schema } from "effect"

/** `host:port` to listen on (`0.0.0.0:8788`, `127.0.0.1:0` for a free port). */
export const Listen = Schema.String.check(Schema.isPattern(/^(?:\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/u)).annotate({
  description: "host:port to listen on (0.0.0.0:8788 for every interface; port 0 picks a free one)"
})

/** The parts of a `listen` value. */
export const hostPort = (listen: string): { readonly host: string; readonly port: number } => {
  const at = listen.lastIndexOf(":")
  const host = listen.slice(0, at).replace(/^\[(.*)\]$/u, "$1")
  return { host, port: Number(listen.slice(at + 1)) }
}

/** A Standard Webhooks secret: `whsec_` and the key in base64. */
const SigningSecret = Schema.String.check(
  Schema.isPattern(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/u, {
    message: "must be a Standard Webhooks secret: whsec_ followed by at least 12 bytes in base64"
  })
)

const int = (min: number, max: number) => Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }))

/** A client's request rate: `perSecond` on average, bursts of up to `burst` (default: one second's worth). */
export const Rate = Schema.Struct({
  perSecond: Schema.Number.check(Schema.isBetween({ minimum: 0.01, maximum: 100_000 })).annotate({
    description: "Requests per second on average; above it the client is answered 429 QUOTA_ERROR"
  }),
  burst: Schema.optionalKey(int(1, 1_000_000).annotate({ description: "Requests at once (default: perSecond)" }))
})
/** @see {@link Rate} */
export type Rate = typeof Rate.Type

const clientName = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/u)).annotate({
  description: "The client's name (in logs and quota names)"
})

/**
 * One client: its name, and either a bearer token (`Authorization: Bearer <token>`) or a Standard
 * Webhooks signing secret (`webhook-id`, `webhook-timestamp`, `webhook-signature`), not both.
 */
export const Client = Schema.Struct({
  name: clientName,
  bearer: Schema.optionalKey(
    ConfigField.secret(Schema.RedactedFromValue(Schema.String.check(Schema.isMinLength(16))), {
      description: "The client's bearer token (at least 16 characters); write it as an env: or file: reference"
    })
  ),
  signingSecret: Schema.optionalKey(
    ConfigField.secret(Schema.RedactedFromValue(SigningSecret), {
      description: "The client's Standard Webhooks secret (whsec_...); write it as an env: or file: reference"
    })
  ),
  rate: Schema.optionalKey(Rate)
}).check(
  Schema.makeFilter<{ readonly bearer?: unknown; readonly signingSecret?: unknown }>((c) =>
    (c.bearer === undefined) !== (c.signingSecret === undefined)
      ? true
      : { path: [c.bearer === undefined ? "bearer" : "signingSecret"], issue: "give one of bearer or signingSecret" }
  )
)
/** @see {@link Client} */
export type Client = typeof Client.Type

/** The whole config: `clients` is required, everything else has a default. */
export const Config = Schema.Struct({
  listen: Listen.pipe(Schema.withDecodingDefaultKey(Effect.succeed("0.0.0.0:8788"))),
  clients: Schema.Array(Client)
    .check(Schema.isMinLength(1))
    .annotate({ description: "Who may post: each with a bearer token or a Standard Webhooks signing secret." }),
  maxBodyBytes: int(1024, 64 * 1024 * 1024)
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(1024 * 1024)))
    .annotate({ description: "Largest request body, in bytes (default 1 MiB); a larger one is answered 413" }),
  maxItemsPerRequest: int(1, 100)
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(100)))
    .annotate({ description: "Items per POST /v1/items (at most 100, the default)" }),
  check: Schema.Struct({
    deadline: ConfigDuration.withDefault("2 seconds", "1 millis").annotate({
      description:
        "Longest a POST /v1/check waits for the verdict before the failure mode decides (default 2 seconds); a request may ask for less"
    })
  }).pipe(Schema.withDecodingDefaultKey(Effect.succeed({})))
}).check(
  Schema.makeFilter<{ readonly clients: ReadonlyArray<{ readonly name: string }> }>((c) => {
    const seen = new Set<string>()
    for (const [i, client] of c.clients.entries()) {
      if (seen.has(client.name))
        return { path: ["clients", i, "name"], issue: `a second client named '${client.name}'` }
      seen.add(client.name)
    }
    return true
  })
)
/** The decoded config. */
export type Config = typeof Config.Type
/** The config as a user writes it. */
export type ConfigInput = typeof Config.Encoded
