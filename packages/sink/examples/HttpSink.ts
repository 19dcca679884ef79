/**
 * An example sink, in one file: POSTs each record to a URL with its delivery id as `Idempotency-Key`,
 * so a receiver that keeps the keys it has seen holds each record once. A 2xx is delivered; a 408, a
 * 429, a 5xx or no answer is retryable; any other status is permanent. Its keep-alive agent is closed
 * with the sink's scope.
 */
import { Agent, request } from "node:http"
import { DeliveryResult, Sink, SinkRecord } from "@warden/sink"
import { Effect, Schema } from "effect"

const Config = Schema.Struct({
  url: Schema.String.check(Schema.isPattern(/^http:\/\//u)).annotate({ description: "Where records are POSTed." })
})

const post = (agent: Agent, url: string, record: SinkRecord.SinkRecord) =>
  Effect.callback<DeliveryResult.DeliveryResult>((resume) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "idempotency-key": SinkRecord.deliveryId(record) },
        timeout: 5_000
      },
      (res) => {
        res.resume()
        const status = res.statusCode ?? 0
        resume(
          Effect.succeed(
            status >= 200 && status < 300
              ? DeliveryResult.delivered
              : status === 408 || status === 429 || status >= 500
                ? DeliveryResult.retryable(`HTTP ${status}`)
                : DeliveryResult.permanent(`HTTP ${status}`)
          )
        )
      }
    )
    req.on("timeout", () => req.destroy(new Error("timed out")))
    req.on("error", (error) => resume(Effect.succeed(DeliveryResult.retryable(`no answer: ${error.message}`))))
    req.end(record.json)
  })

export const sink = Sink.make({
  type: "http-example",
  configSchema: Config,
  delivery: "idempotent",
  batchSize: 32,
  make: (config) =>
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => new Agent({ keepAlive: true })),
        (agent) => Effect.sync(() => agent.destroy())
      ),
      (agent) => ({
        deliver: (records) => Effect.forEach(records, (record) => post(agent, config.url, record), { concurrency: 8 })
      })
    )
})
