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

  describe("path", () => {
    const Files = Schema.Struct({
      output: ConfigField.path(Schema.String.check(Schema.isNonEmpty()), { description: "The CSV file" }),
      cursor: Schema.optionalKey(Schema.String.annotate(ConfigField.Path)),
      tls: Schema.optionalKey(Schema.Struct({ caFiles: Schema.Array(ConfigField.path(Schema.String)) })),
      byName: Schema.optionalKey(Schema.Record(Schema.String, ConfigField.path(Schema.String))),
      either: Schema.optionalKey(Schema.Union([ConfigField.path(Schema.String), Schema.Number])),
      url: Schema.String
    })

    it("fields marks the path fields, through optional keys, nested structs, arrays, records and unions", () => {
      const marked = ConfigField.fields(Files).filter((f) => f.filePath)
      assert.deepStrictEqual(
        marked.map((f) => f.path),
        [["output"], ["cursor"], ["tls", "caFiles", "*"], ["byName", "*"], ["either"]]
      )
      assert.strictEqual(marked[0]!.description, "The CSV file")
      assert.isFalse(marked.some((f) => f.secret))
    })

    it("resolvePaths makes each relative path absolute against the base directory, and only those", () => {
      const input = {
        output: "out/rows.csv",
        cursor: "/var/lib/cursor",
        tls: { caFiles: ["ca.pem", "../shared/ca.pem", "/etc/ssl/ca.pem"] },
        byName: { a: "a.txt" },
        either: "e.txt",
        url: "relative/not-a-path"
      }
      const before = structuredClone(input)
      assert.deepStrictEqual(ConfigField.resolvePaths(Files, input, "/srv/warden"), {
        output: "/srv/warden/out/rows.csv",
        cursor: "/var/lib/cursor",
        tls: { caFiles: ["/srv/warden/ca.pem", "/srv/shared/ca.pem", "/etc/ssl/ca.pem"] },
        byName: { a: "/srv/warden/a.txt" },
        either: "/srv/warden/e.txt",
        url: "relative/not-a-path"
      })
      assert.deepStrictEqual(input, before)
    })

    it("resolvePaths keeps what is not a non-empty string, and does not expand ~", () => {
      const input = { output: "", either: 3, tls: { caFiles: "not-an-array" }, cursor: "~/cursor" }
      assert.deepStrictEqual(ConfigField.resolvePaths(Files, input, "/srv/warden"), {
        output: "",
        either: 3,
        tls: { caFiles: "not-an-array" },
        cursor: "/srv/warden/~/cursor"
      })
      assert.strictEqual(ConfigField.resolvePaths(Schema.Struct({ a: Schema.String }), input, "/x"), input)
    })

    it("the JSON Schema says a path field is relative to the config file's directory", () => {
      const json = ConfigField.jsonSchema(Files) as any
      assert.strictEqual(json.properties.output.description, `The CSV file. ${ConfigField.PATH_NOTE}`)
      assert.strictEqual(json.properties.cursor.description, ConfigField.PATH_NOTE)
      assert.strictEqual(json.properties.tls.properties.caFiles.items.description, ConfigField.PATH_NOTE)
      assert.strictEqual(json.properties.url.description, undefined)
      assert.notInclude(JSON.stringify(json), ConfigField.pathKey)
    })
  })
})
