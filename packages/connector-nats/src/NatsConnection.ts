/**
 * How a Warden NATS plugin connects: the config fields (servers and one way of authenticating) and the
 * client's options from them. Shared by this connector and the NATS sink (`@warden/sink-nats`).
 *
 * @since 0.2.0
 */
import { readFile } from "node:fs/promises"
import { type ConnectionOptions, credsAuthenticator } from "@nats-io/transport-node"
import { ConfigField } from "@warden/connector"
import { Effect, Redacted, Schema } from "effect"

/** `nats://host:port` (no credentials in the URL: they go in `token`, `user`/`password` or `credsFile`). */
export const ServerUrl = Schema.String.check(Schema.isPattern(/^nats:\/\/[^\s/@]+$/u)).annotate({
  description: "A NATS server as nats://host:port (credentials go in token, user/password or credsFile, not here)"
})

/** The connection's fields of a config: `servers` and at most one way of authenticating. */
export const fields = {
  servers: Schema.Array(ServerUrl)
    .check(Schema.isMinLength(1))
    .annotate({ description: "The NATS servers to connect to (the client reconnects to any of them)." }),
  token: Schema.optionalKey(
    ConfigField.secret(Schema.RedactedFromValue(Schema.String), { description: "Token authentication." })
  ),
  user: Schema.optionalKey(Schema.String.annotate({ description: "User name (with password)." })),
  password: Schema.optionalKey(
    ConfigField.secret(Schema.RedactedFromValue(Schema.String), { description: "Password (with user)." })
  ),
  credsFile: Schema.optionalKey(
    Schema.String.check(Schema.isNonEmpty()).annotate({
      description: "Path of a NATS .creds file (a user JWT and its NKey seed), read at each connection."
    })
  )
}

/** The decoded connection fields. */
export interface Connection {
  readonly servers: ReadonlyArray<string>
  readonly token?: Redacted.Redacted<string> | undefined
  readonly user?: string | undefined
  readonly password?: Redacted.Redacted<string> | undefined
  readonly credsFile?: string | undefined
}

/** At most one way to authenticate, and `user` goes with `password` (a check on the whole config). */
export const oneAuthentication = Schema.makeFilter<{
  readonly token?: unknown
  readonly user?: string
  readonly password?: unknown
  readonly credsFile?: string
}>((c) => {
  if (c.user !== undefined && c.password === undefined) return { path: ["password"], issue: "required with user" }
  if (c.password !== undefined && c.user === undefined) return { path: ["user"], issue: "required with password" }
  const ways = [c.token !== undefined, c.user !== undefined, c.credsFile !== undefined].filter(Boolean).length
  return (
    ways <= 1 || {
      path: [c.credsFile !== undefined ? "credsFile" : "token"],
      issue: "give one of token, user/password or credsFile, not several"
    }
  )
})

/**
 * The client's options: servers, reconnection for ever, and the one way of authenticating configured.
 * Fails with the message of a `credsFile` that cannot be read.
 */
export const options = (config: Connection): Effect.Effect<ConnectionOptions, string> =>
  Effect.gen(function* () {
    const base: ConnectionOptions = {
      servers: [...config.servers],
      name: "warden",
      maxReconnectAttempts: -1
    }
    if (config.token !== undefined) return { ...base, token: Redacted.value(config.token) }
    if (config.user !== undefined && config.password !== undefined)
      return { ...base, user: config.user, pass: Redacted.value(config.password) }
    if (config.credsFile !== undefined) {
      const path = config.credsFile
      const creds = yield* Effect.tryPromise({
        try: () => readFile(path),
        catch: (error) => `credsFile: cannot read ${path}: ${(error as Error).message ?? error}`
      })
      return { ...base, authenticator: credsAuthenticator(new Uint8Array(creds)) }
    }
    return base
  })
