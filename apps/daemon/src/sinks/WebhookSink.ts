/**
 * POSTs each verdict as JSON to a URL. With a `secret`, each request is signed the Standard Webhooks
 * way (standardwebhooks.com), so a receiver can check the body and refuse a replay with any of that
 * specification's libraries:
 * - `webhook-id`: the message id, the same on every retry of one delivery (`msg_` + a hash of
 *   `source/reference/version`): a receiver that has seen it already drops the repeat;
 * - `webhook-timestamp`: seconds since the epoch when this attempt was sent: a receiver refuses one
 *   too far from its clock (the libraries allow 5 minutes), so a captured request cannot be replayed later;
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. The key is the secret's
 *   bytes after `whsec_`, base64-decoded, when it is written so (the libraries' format); any other
 *   secret is used as its UTF-8 bytes (give receivers `whsec_` + its base64).
 * Kept for one more release beside them: `X-Warden-Signature: sha256=<hex HMAC-SHA256 of the body>`
 * (deprecated: it has no timestamp, so it cannot stop a replay). `X-Warden-Delivery` names the
 * delivery (`source/reference/version`). A 2xx is delivered. A 4xx other than 408 and 429 is the
 * receiver refusing the record: a permanent failure, dead-lettered at once. Anything else (no answer,
 * a timeout, a 5xx, a 408 or 429, a 3xx: redirects are not followed) is retried with backoff by the
 * sink worker for the sink's `retry.window`. Requests go through
 * `HTTP_PROXY`/`HTTPS_PROXY` when set, `NO_PROXY` honoured (the API client's pool, `HttpDispatcher`).
 */
import { createHash, createHmac } from "node:crypto"
import { HttpDispatcher } from "@warden/transport"
import { ConfigField, DeliveryResult, Sink as Plugin } from "@warden/sink"
import { Clock, Duration, Effect, Redacted, Schema } from "effect"
import { durationWithDefault, HttpUrl, IntBetween, Secret } from "../domain/internal/Schemas.ts"
import * as PluginSink from "./PluginSink.ts"
import type { Sink } from "./Sink.ts"

/** The deprecated `X-Warden-Signature` value of a body (kept one release beside Standard Webhooks). */
export const signature = (secret: Redacted.Redacted<string>, body: string): string =>
  `sha256=${createHmac("sha256", Redacted.value(secret)).update(body).digest("hex")}`

/** The HMAC key of a secret: `whsec_<base64>` decoded, as the Standard Webhooks libraries do; else its UTF-8 bytes. */
export const signingKey = (secret: Redacted.Redacted<string>): Buffer => {
  const value = Redacted.value(secret)
  return value.startsWith("whsec_") ? Buffer.from(value.slice("whsec_".length), "base64") : Buffer.from(value, "utf8")
}

/** The `webhook-id` of a delivery: stable across its retries, safe in a header. */
export const messageId = (delivery: string): string =>
  `msg_${createHash("sha256").update(delivery).digest("base64url").slice(0, 27)}`

/** The Standard Webhooks headers of one attempt (`timestamp` in seconds). */
export const standardHeaders = (
  secret: Redacted.Redacted<string>,
  id: string,
  timestamp: number,
  body: string
): Record<string, string> => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": `v1,${createHmac("sha256", signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`
})

/** The webhook sink's config (besides `type`, `name` and `content`). */
export const Config = Schema.Struct({
  url: HttpUrl.annotate({ description: "Where each verdict is POSTed as JSON" }),
  secret: Schema.optionalKey(
    ConfigField.secret(Secret, {
      description: "Signs each request (Standard Webhooks: whsec_ and base64, or any text)"
    })
  ),
  /** Accepted so older files load, and ignored: a delivery is retried for `retry.window`. */
  maxAttempts: Schema.optionalKey(IntBetween(1, 100)),
  timeout: durationWithDefault("10 seconds", "100 millis")
})

/** What an HTTP status means for a delivery: delivered, refused for good, or worth trying again. */
export const resultOf = (status: number): DeliveryResult.DeliveryResult =>
  status >= 200 && status < 300
    ? DeliveryResult.delivered
    : status >= 400 && status < 500 && status !== 408 && status !== 429
      ? DeliveryResult.permanent(`HTTP ${status}: the receiver refused the record`)
      : DeliveryResult.retryable(`HTTP ${status}`)

/** POSTs each record, 8 at once, on one keep-alive pool (closed with the scope when one is given). */
const deliverer = (options: {
  readonly url: string
  readonly secret: Redacted.Redacted<string> | undefined
  readonly timeoutMillis?: number | undefined
}): Plugin.Deliverer & { readonly close: () => Promise<void> } => {
  // One keep-alive pool per sink, through the environment's proxy when one is set.
  const dispatcher = HttpDispatcher.makeUnsafe()
  const target = new URL(options.url)
  return {
    close: () => dispatcher.destroy(),
    deliver: (records) =>
      Effect.forEach(
        records,
        (record) => {
          const body = record.json
          const delivery = `${record.source}/${record.reference}/${record.version}`
          return Effect.gen(function* () {
            const headers: Record<string, string> = {
              "content-type": "application/json",
              "user-agent": "warden-daemon",
              "x-warden-delivery": delivery
            }
            if (options.secret !== undefined) {
              const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
              Object.assign(headers, standardHeaders(options.secret, messageId(delivery), now, body))
              headers["x-warden-signature"] = signature(options.secret, body)
            }
            return headers
          }).pipe(
            Effect.flatMap((headers) =>
              Effect.tryPromise({
                try: (signal) =>
                  dispatcher
                    .request({
                      origin: target.origin,
                      path: `${target.pathname}${target.search}`,
                      method: "POST",
                      headers,
                      body,
                      signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMillis ?? 10_000)])
                    })
                    .then(async (res) => {
                      await res.body.dump()
                      return res.statusCode
                    }),
                catch: (error) => error
              })
            ),
            Effect.match({
              onSuccess: resultOf,
              onFailure: (error) =>
                DeliveryResult.retryable(`no answer: ${error instanceof Error ? error.message : String(error)}`)
            })
          )
        },
        { concurrency: 8 }
      )
  }
}

/** The webhook sink, declared with the sink SDK; its pool is closed with the sink's scope. */
export const sink = Plugin.make({
  type: "webhook",
  configSchema: Config,
  // A receiver drops repeats by `webhook-id` (the same on every redelivery of a record).
  delivery: "at-least-once",
  batchSize: 64,
  make: (config) =>
    Effect.acquireRelease(
      Effect.sync(() =>
        deliverer({ url: config.url, secret: config.secret, timeoutMillis: Duration.toMillis(config.timeout) })
      ),
      (d) => Effect.promise(() => d.close().catch(() => undefined))
    )
})

/** The webhook sink as the worker drives it (tests'). */
export const make = (options: {
  readonly name: string
  readonly url: string
  readonly secret: Redacted.Redacted<string> | undefined
  readonly timeoutMillis?: number
}): Sink => PluginSink.of(sink, deliverer(options), { name: options.name })
