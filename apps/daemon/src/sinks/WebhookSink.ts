/**
 * POSTs each verdict as JSON to a URL, signed: `X-Warden-Signature: sha256=<hex HMAC-SHA256 of the
 * exact body with the configured secret>`, plus `X-Warden-Delivery` (`source/reference/version`, the
 * idempotency key). A 2xx is delivered; anything else is retried with backoff by the sink worker and
 * ends in the dead-letter table after `maxAttempts`.
 */
import { createHmac } from "node:crypto"
import { Effect, Redacted } from "effect"
import type { Sink } from "./Sink.ts"

/** The signature header value of a body. */
export const signature = (secret: Redacted.Redacted<string>, body: string): string =>
  `sha256=${createHmac("sha256", Redacted.value(secret)).update(body).digest("hex")}`

/** The webhook sink. */
export const make = (options: {
  readonly name: string
  readonly url: string
  readonly secret: Redacted.Redacted<string> | undefined
  readonly maxAttempts: number
  readonly timeoutMillis?: number
}): Sink => ({
  name: options.name,
  type: "webhook",
  batchSize: 64,
  maxAttempts: options.maxAttempts,
  deliver: (records) =>
    Effect.forEach(
      records,
      (record) => {
        const body = JSON.stringify(record)
        const headers: Record<string, string> = {
          "content-type": "application/json",
          "user-agent": "warden-daemon",
          "x-warden-delivery": `${record.source}/${record.reference}/${record.version}`
        }
        if (options.secret !== undefined) headers["x-warden-signature"] = signature(options.secret, body)
        return Effect.tryPromise({
          try: (signal) =>
            fetch(options.url, {
              method: "POST",
              headers,
              body,
              signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMillis ?? 10_000)])
            }).then(async (res) => {
              await res.body?.cancel()
              return res.status
            }),
          catch: (error) => error
        }).pipe(
          Effect.match({
            onSuccess: (status) => (status >= 200 && status < 300 ? undefined : `HTTP ${status}`),
            onFailure: (error) => `no answer: ${error instanceof Error ? error.message : String(error)}`
          })
        )
      },
      { concurrency: 8 }
    )
})
