import { assert, describe, it } from "@effect/vitest"
import { ConfigDuration, ConfigField, Connector } from "@warden/connector"
import { Effect, Schema, Stream } from "effect"

const Config = Schema.Struct({
  token: ConfigField.secret(Schema.RedactedFromValue(Schema.String.check(Schema.isNonEmpty())), {
    description: "The bot token"
  }),
  password: Schema.optionalKey(Schema.String.annotate(ConfigField.Secret)),
  accounts: Schema.Array(Schema.Struct({ name: Schema.String, key: ConfigField.secret(Schema.String) })),
  url: Schema.String.annotate({ description: "Where to read from" }),
  every: ConfigDuration.withDefault("1 minute").annotate({ description: "Time between two polls" }),
  verbose: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))).annotate({
    description: "Log each poll"
  })
})

const connector = Connector.make({
  type: "secretive",
  configSchema: Config,
  capabilities: { actions: [], duplicates: "never", contentTypes: ["text"] },
  make: () => Effect.succeed({ events: () => Stream.empty })
})

describe("ConfigField", () => {
  it("secretFields finds fields marked secret through Redacted, optional keys and arrays", () => {
    assert.deepStrictEqual(ConfigField.secretFields(Config), [
      { path: ["token"], description: "The bot token" },
      { path: ["password"], description: undefined },
      { path: ["accounts", "*", "key"], description: undefined }
    ])
  })

  it("secretValues names each string written in a secret field, array indexes included", () => {
    const input = {
      token: "abc",
      accounts: [
        { name: "a", key: "k1" },
        { name: "b", key: "k2" }
      ],
      url: "http://x"
    }
    assert.deepStrictEqual(ConfigField.secretValues(Config, input), [
      ["token"],
      ["accounts", 0, "key"],
      ["accounts", 1, "key"]
    ])
  })

  it("a schema with no secret field has no secret values", () => {
    assert.deepStrictEqual(ConfigField.secretValues(Schema.Struct({ token: Schema.String }), { token: "x" }), [])
  })

  it("configJsonSchema marks secret fields writeOnly (no vendor keyword), and keeps descriptions", () => {
    const json = Connector.configJsonSchema(connector) as any
    assert.deepStrictEqual(json.properties.token, {
      type: "string",
      minLength: 1,
      writeOnly: true,
      description: "The bot token"
    })
    assert.strictEqual(json.properties.password.writeOnly, true)
    assert.strictEqual(json.properties.accounts.items.properties.key.writeOnly, true)
    assert.strictEqual(json.properties.accounts.items.properties.name.writeOnly, undefined)
    assert.strictEqual(json.properties.url.description, "Where to read from")
  })

  it("configJsonSchema keeps a field's own description through a default or a duration, before the type's", () => {
    const json = Connector.configJsonSchema(connector) as any
    assert.strictEqual(json.properties.verbose.description, "Log each poll")
    assert.match(json.properties.every.description, /^Time between two polls\. A duration such as '500ms'/u)
    assert.strictEqual(json.properties.every.default, "1 minute")
  })

  it("a union member's description stays on the member, not on the field", () => {
    const Feed = Schema.Struct({
      feeds: Schema.Array(
        Schema.Union([Schema.String.annotate({ description: "A URL" }), Schema.Struct({ url: Schema.String })])
      ).annotate({ description: "The feeds" })
    })
    const json = ConfigField.markJsonSchema(Feed, Schema.toJsonSchemaDocument(Feed).schema as never) as any
    assert.strictEqual(json.properties.feeds.description, "The feeds")
    assert.strictEqual(json.properties.feeds.items.description, undefined)
    assert.strictEqual(json.properties.feeds.items.anyOf[0].description, "A URL")
  })
})
