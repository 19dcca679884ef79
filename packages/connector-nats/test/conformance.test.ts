import type { Conformance } from "@warden/connector/testing"
import { describeConformance } from "@warden/connector/testing"
import { Effect, type Scope } from "effect"
import { connector } from "../src/index.ts"
import { NatsServer } from "../src/testing/index.ts"

let streams = 0

/**
 * A real nats-server with JetStream (one per check): `publish` adds messages to a fresh stream, `edit`
 * publishes an item's reference again with new text, `stop`/`start` stop and restart the server on the
 * same port and store. No `remove`: the message format has no deletes.
 */
const setup: Effect.Effect<Conformance.Harness, never, Scope.Scope> = Effect.gen(function* () {
  const server = yield* NatsServer.scoped()
  const stream = `CONFORMANCE_${++streams}`
  yield* Effect.promise(() => NatsServer.createStream(server.url, { name: stream, subjects: [`${stream}.>`] }))
  let published = 0
  return {
    config: {
      servers: [server.url],
      stream,
      subject: `${stream}.comments`,
      ackWait: "2 seconds",
      retry: { initial: "50 millis", max: "500 millis" }
    },
    upstream: {
      publish: (count) =>
        Effect.promise(() =>
          NatsServer.publish(
            server.url,
            `${stream}.comments`,
            Array.from({ length: count }, () => {
              const n = ++published
              return { reference: `m-${n}`, text: `message ${n}` }
            })
          )
        ),
      edit: (index) =>
        Effect.promise(() =>
          NatsServer.publish(server.url, `${stream}.comments`, [
            { reference: `m-${index}`, text: `edited message ${index}` }
          ])
        ),
      stop: Effect.promise(() => server.stop()),
      start: Effect.promise(() => server.start())
    }
  }
})

describeConformance("nats", { connector, setup, timeout: "10 seconds" })
