import { assert, describe, it } from "@effect/vitest"
import { ConfigField, DeliveryResult, Sink } from "@warden/sink"
import { Conformance, HttpReceiver } from "@warden/sink/testing"
import { Effect, Schema } from "effect"
import { sink } from "../examples/HttpSink.ts"

const harness = (dedupe: boolean) =>
  Effect.map(HttpReceiver.make({ idHeader: "idempotency-key", dedupe }), (receiver) => ({
    config: { url: receiver.url },
    downstream: receiver
  }))

/** The kit fails a sink that breaks the contract, naming what it saw (it is not a test that cannot fail). */
describe("the sink conformance kit", () => {
  it.live("fails a sink that says idempotent when the receiver keeps repeats", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(Conformance.redelivery({ sink, setup: harness(false) }))
      assert.strictEqual(failure.check, "redelivery")
      assert.include(failure.message, "more than once")
    })
  )

  it.live("passes an at-least-once sink whose receiver keeps repeats", () =>
    Conformance.redelivery({ sink: { ...sink, delivery: "at-least-once" }, setup: harness(false) })
  )

  it.live("fails a sink that answers a refused record as retryable", () =>
    Effect.gen(function* () {
      const everythingRetryable = Sink.make({
        ...sink,
        make: (config, host) =>
          Effect.map(sink.make(config, host), (d) => ({
            deliver: (records) =>
              Effect.map(d.deliver(records), (results) =>
                results.map((r) => (r._tag === "Permanent" ? DeliveryResult.retryable(r.reason) : r))
              )
          }))
      })
      const failure = yield* Effect.flip(
        Conformance.partialBatch({
          sink: everythingRetryable,
          setup: Effect.map(harness(true), (h) => ({
            ...h,
            refuse: { permanent: (r) => ({ ...r, json: JSON.stringify({ refuse: "permanent" }) }) }
          }))
        })
      )
      assert.include(failure.message, "expected Delivered, Permanent, Delivered, Delivered, Delivered")
      assert.include(failure.message, "Retryable(HTTP 400)")
    })
  )

  it.live("fails a sink that leaves its sockets open", () =>
    Effect.gen(function* () {
      const leaky = Sink.make({
        ...sink,
        // Its agent is never destroyed: keep-alive sockets outlive the scope.
        make: (config, host) => sink.make(config, host).pipe(Effect.scoped)
      })
      const failure = yield* Effect.flip(Conformance.cleanShutdown({ sink: leaky, setup: harness(true) }))
      assert.include(failure.message, "resources left after the sink's scope closed")
      assert.include(failure.message, "TCP")
    })
  )

  it.live("fails a sink that gives up (permanent) while the receiver is down", () =>
    Effect.gen(function* () {
      const impatient = Sink.make({
        ...sink,
        make: (config, host) =>
          Effect.map(sink.make(config, host), (d) => ({
            deliver: (records) =>
              Effect.map(d.deliver(records), (rs) =>
                rs.map((r) => (r._tag === "Retryable" ? DeliveryResult.permanent(r.reason) : r))
              )
          }))
      })
      const failure = yield* Effect.flip(Conformance.receiverDown({ sink: impatient, setup: harness(true) }))
      assert.include(failure.message, "expected 3 × Retryable")
    })
  )
})

describe("Sink", () => {
  const Config = Schema.Struct({
    url: Schema.String,
    token: Schema.optionalKey(ConfigField.secret(Schema.String))
  })
  const typed = Sink.make({ ...sink, configSchema: Config, make: () => Effect.die("unused") })

  it.effect("decodes a config naming each bad field, excess keys refused", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Sink.decodeConfig(typed, { url: 3, extra: true }))
      assert.strictEqual(error._tag, "SinkError")
      assert.include(error.message, "invalid http-example sink config")
      assert.include(error.message, '["url"]')
      assert.include(error.message, '["extra"]')
    })
  )

  it("lists secret fields and marks them writeOnly in the JSON Schema", () => {
    assert.deepStrictEqual(Sink.secretFields(typed), [{ path: ["token"], description: undefined }])
    const schema = Sink.configJsonSchema(typed) as { properties: Record<string, Record<string, unknown>> }
    assert.strictEqual(schema.properties.token?.writeOnly, true)
    assert.strictEqual(schema.properties.url?.writeOnly, undefined)
  })

  it("names each sink type's migration table apart from the daemon's", () => {
    assert.strictEqual(Sink.migrationsTable("sql"), "warden_sink_sql_migrations")
    assert.strictEqual(Sink.migrationsTable("my-bus"), "warden_sink_my_bus_migrations")
  })

  it("validates the shape of an imported sink", () => {
    assert.isTrue(Sink.isSink(sink))
    assert.isFalse(Sink.isSink({ type: "x", make: () => undefined }))
    assert.isFalse(Sink.isSink({ ...sink, delivery: "exactly-once" }))
    assert.isFalse(Sink.isSink({ ...sink, stores: [{ table: "Robert'); DROP TABLE" }] }))
  })
})
