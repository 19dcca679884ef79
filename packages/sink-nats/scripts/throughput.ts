/**
 * How fast the NATS sink publishes: N records in batches of the sink's batch size (256, as the
 * daemon's worker hands them over) to a local nats-server with JetStream (file storage), each
 * acknowledged by the stream. Prints records/s; run three times and read the median:
 *
 *   node --conditions=@warden/source scripts/throughput.ts [N]
 */
import { NatsServer } from "@warden/connector-nats/testing"
import { Sink } from "@warden/sink"
import { Effect } from "effect"
import { sink } from "../src/index.ts"

const N = Number(process.argv[2] ?? 20_000)

const main = Effect.gen(function* () {
  const server = yield* NatsServer.scoped()
  yield* Effect.promise(() => NatsServer.createStream(server.url, { name: "BENCH", subjects: ["bench.>"] }))
  const deliverer = yield* Sink.makeDeliverer(
    sink,
    { servers: [server.url], subject: "bench.{source}", stream: "BENCH" },
    { name: "bench", setting: (f) => f, sql: undefined }
  )
  const records = Array.from({ length: N }, (_, i) => ({
    source: "feed",
    reference: `rss:feed/${i}`,
    version: 1,
    json: JSON.stringify({
      source: "feed",
      reference: `rss:feed/${i}`,
      version: 1,
      status: "analysed",
      verdict: { type: "NEUTRAL" }
    })
  }))
  // One warm-up batch (the connection), then the clock.
  yield* deliverer.deliver(records.slice(0, 1))
  const started = performance.now()
  for (let at = 1; at < N; at += sink.batchSize) {
    const results = yield* deliverer.deliver(records.slice(at, at + sink.batchSize))
    if (results.some((r) => r._tag !== "Delivered")) return yield* Effect.die(new Error("a record was not delivered"))
  }
  const seconds = (performance.now() - started) / 1000
  const stored = yield* Effect.promise(() => NatsServer.messages(server.url, "BENCH"))
  console.log(
    `${N - 1} records in ${seconds.toFixed(2)} s: ${Math.round((N - 1) / seconds)} records/s (${stored.length} stored)`
  )
})

Effect.runPromise(Effect.scoped(main))
