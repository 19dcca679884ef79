import { assert, describe, it } from "@effect/vitest"
import { ConfigField, Connector, ConnectorRegistry } from "@warden/connector"
import { Config, ConfigProvider, Duration, Effect, Redacted } from "effect"
import { connector, layer, layerConfig, NatsConfig, NatsConnector } from "../src/index.ts"

const minimal = { servers: ["nats://127.0.0.1:4222"], stream: "COMMENTS" }

describe("config", () => {
  it.effect("defaults", () =>
    Effect.gen(function* () {
      const config = yield* Connector.decodeConfig(connector, minimal)
      assert.strictEqual(config.batch, 100)
      assert.strictEqual(config.maxAckPending, 1000)
      assert.strictEqual(Duration.toMillis(config.ackWait), 30_000)
      assert.strictEqual(Duration.toMillis(config.retry.initial), 1000)
      assert.isUndefined(config.durable)
    })
  )

  it.effect("errors name every offending field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Connector.decodeConfig(connector, {
          servers: ["http://127.0.0.1:4222", "nats://user:pw@host:4222"],
          stream: "has.dot",
          durable: "with space",
          batch: 0,
          ackWait: "10 millis"
        })
      )
      assert.strictEqual(error.reason, "InvalidConfig")
      for (const field of ["servers", "stream", "durable", "batch", "ackWait"]) assert.include(error.message, field)
    })
  )

  it.effect("one way of authenticating, user with password, batch within maxAckPending", () =>
    Effect.gen(function* () {
      const fails = (input: object) => Effect.flip(Connector.decodeConfig(connector, { ...minimal, ...input }))
      assert.include((yield* fails({ token: "t", user: "u", password: "p" })).message, "give one of token")
      assert.include((yield* fails({ user: "u" })).message, "password")
      assert.include((yield* fails({ password: "p" })).message, "user")
      assert.include((yield* fails({ token: "t", credsFile: "/x.creds" })).message, "credsFile")
      assert.include((yield* fails({ batch: 500, maxAckPending: 100 })).message, "batch")
      yield* Connector.decodeConfig(connector, { ...minimal, user: "u", password: "p" })
    })
  )

  it.effect("token and password are Redacted and marked secret", () =>
    Effect.gen(function* () {
      const config = yield* Connector.decodeConfig(connector, { ...minimal, user: "u", password: "s3cret" })
      assert.isTrue(Redacted.isRedacted(config.password))
      assert.notInclude(JSON.stringify(config), "s3cret")
      assert.deepStrictEqual(
        ConfigField.secretFields(NatsConfig.Config).map((f) => f.path.join(".")),
        ["token", "password"]
      )
    })
  )

  it("derives a JSON Schema with every field described", () => {
    const schema = Connector.configJsonSchema(connector) as {
      required?: unknown
      properties?: Record<string, { description?: string; writeOnly?: boolean }>
    }
    assert.deepStrictEqual(schema.required, ["servers", "stream"])
    for (const [key, field] of Object.entries(schema.properties ?? {})) assert.isString(field.description, key)
    assert.isTrue(schema.properties?.token?.writeOnly)
  })

  it("the default durable consumer is named after the subject", () => {
    assert.match(NatsConnector.defaultDurable("comments.>"), /^warden-[0-9a-f]{12}$/u)
    assert.notStrictEqual(NatsConnector.defaultDurable("a"), NatsConnector.defaultDurable("b"))
  })
})

describe("layers and registry", () => {
  it.effect("layer(options) provides a NatsSource", () =>
    Effect.gen(function* () {
      const source = yield* NatsConnector.NatsSource
      assert.isFunction(source.events)
      assert.isFunction(source.acknowledge)
    }).pipe(Effect.provide(layer(minimal)))
  )

  it.effect("layerConfig reads an Effect Config", () =>
    Effect.gen(function* () {
      const source = yield* NatsConnector.NatsSource
      assert.isFunction(source.events)
    }).pipe(
      Effect.provide(layerConfig(Config.schema(NatsConfig.Config, "nats"))),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ nats: minimal })))
    )
  )

  it.effect("the registry loads it through the caller's import", () =>
    Effect.gen(function* () {
      const resolved = yield* ConnectorRegistry.resolve(
        { importModule: (s) => import(/* @vite-ignore */ s), baseDirectory: "." },
        { module: new URL("../src/index.ts", import.meta.url).pathname }
      )
      assert.strictEqual(resolved, connector)
    })
  )
})
