/**
 * Who is posting: a bearer token (`Authorization: Bearer <token>`) or a Standard Webhooks signature
 * (https://www.standardwebhooks.com: `webhook-id`, `webhook-timestamp`, `webhook-signature:
 * v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the `whsec_` secret's bytes).
 *
 * Every comparison is constant-time (`timingSafeEqual` over equal-length digests), a signature older
 * or newer than 5 minutes is refused (a replayed request), and the signature is over the raw body as
 * received, before any parsing.
 *
 * @since 0.1.0
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { Redacted } from "effect"
import type { Client } from "./HttpConfig.ts"

/** How far a signature's timestamp may be from now (Standard Webhooks' recommendation). */
export const toleranceSeconds = 5 * 60

/** The headers authentication reads (lower-case names, as node gives them). */
export interface Headers {
  readonly authorization?: string | undefined
  readonly "webhook-id"?: string | undefined
  readonly "webhook-timestamp"?: string | undefined
  readonly "webhook-signature"?: string | undefined
}

/** Why a request was refused (the API's `authenticationError.reason`). */
export type Refusal = "REASON_MISSING_CREDENTIALS" | "REASON_INVALID_CREDENTIALS" | "REASON_EXPIRED_CREDENTIALS"

/** A configured client, ready to compare against. */
interface Known {
  readonly name: string
  readonly bearer?: Buffer
  readonly key?: Buffer
}

const digest = (value: string | Buffer) => createHash("sha256").update(value).digest()

/** The clients of a config, with their secrets decoded once. */
export const prepare = (clients: ReadonlyArray<Client>): ReadonlyArray<Known> =>
  clients.map((c) => ({
    name: c.name,
    ...(c.bearer === undefined ? {} : { bearer: digest(Redacted.value(c.bearer)) }),
    ...(c.signingSecret === undefined
      ? {}
      : { key: Buffer.from(Redacted.value(c.signingSecret).slice("whsec_".length), "base64") })
  }))

/** The signature a sender with `key` puts on a request (`v1,<base64>`): for tests and clients in TypeScript. */
export const sign = (key: Buffer, id: string, timestamp: number, body: Buffer | string): string =>
  `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest("base64")}`

const BEARER = /^Bearer +(\S+)$/u

/**
 * The client a request comes from, or why it is refused. `nowSeconds`: the current time, for the
 * signature's window.
 */
export const authenticate = (
  known: ReadonlyArray<Known>,
  headers: Headers,
  body: Buffer,
  nowSeconds: number
): { readonly client: string } | { readonly refused: Refusal } => {
  const signature = headers["webhook-signature"]
  if (signature !== undefined) {
    const id = headers["webhook-id"]
    const timestamp = headers["webhook-timestamp"]
    if (id === undefined || timestamp === undefined || !/^\d{1,12}$/u.test(timestamp))
      return { refused: "REASON_INVALID_CREDENTIALS" }
    if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return { refused: "REASON_EXPIRED_CREDENTIALS" }
    // Several signatures may be given, space-separated (a sender rotating its secret); any one may match.
    const given = signature
      .split(" ")
      .filter((s) => s.startsWith("v1,"))
      .map((s) => Buffer.from(s.slice(3), "base64"))
    for (const client of known) {
      if (client.key === undefined) continue
      const expected = createHmac("sha256", client.key).update(`${id}.${timestamp}.`).update(body).digest()
      for (const g of given)
        if (g.length === expected.length && timingSafeEqual(g, expected)) return { client: client.name }
    }
    return { refused: "REASON_INVALID_CREDENTIALS" }
  }
  const authorization = headers.authorization
  if (authorization === undefined) return { refused: "REASON_MISSING_CREDENTIALS" }
  const token = BEARER.exec(authorization)?.[1]
  if (token === undefined) return { refused: "REASON_INVALID_CREDENTIALS" }
  // Digests of equal length, so the comparison takes the same time whatever the token.
  const presented = digest(token)
  let found: string | undefined
  for (const client of known) {
    if (client.bearer !== undefined && timingSafeEqual(presented, client.bearer) && found === undefined)
      found = client.name
  }
  return found === undefined ? { refused: "REASON_INVALID_CREDENTIALS" } : { client: found }
}
