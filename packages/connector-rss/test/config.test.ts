import { assert, describe, it } from "@effect/vitest"
import { Connector, ConnectorRegistry } from "@warden/connector"
import { Config, ConfigProvider, Duration, Effect, Redacted } from "effect"
import { HtmlText, RssConfig, RssConnector, connector, layer, layerConfig } from "../src/index.ts"

describe("config", () => {
  it.effect("defaults", () =>
    Effect.gen(function* () {
      const config = yield* Connector.decodeConfig(connector, { feeds: ["https://example.com/feed.xml"] })
      assert.strictEqual(Duration.toMillis(config.pollInterval), 300_000)
      assert.strictEqual(config.content, "auto")
      assert.strictEqual(config.maxItemsPerPoll, 100)
      assert.strictEqual(config.maxRedirects, 5)
      assert.strictEqual(Duration.toMillis(config.retry.max), 1_800_000)
    })
  )

  it.effect("errors name every offending field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Connector.decodeConfig(connector, {
          feeds: ["ftp://example.com/x", { url: "https://ok.example/", id: "bad id" }],
          maxItemsPerPoll: 0,
          content: "body"
        })
      )
      assert.strictEqual(error.reason, "InvalidConfig")
      for (const field of ["feeds", "maxItemsPerPoll", "content", "id"]) assert.include(error.message, field)
    })
  )

  it.effect("header values are Redacted", () =>
    Effect.gen(function* () {
      const config = yield* Connector.decodeConfig(connector, {
        feeds: ["https://example.com/f"],
        headers: { authorization: "Bearer s3cret" }
      })
      assert.isTrue(Redacted.isRedacted(config.headers.authorization))
      assert.notInclude(JSON.stringify(config), "s3cret")
      assert.notInclude(String(config.headers.authorization), "s3cret")
    })
  )

  it("derives a JSON Schema for editors and `warden config schema`", () => {
    const schema = Connector.configJsonSchema(connector) as { required?: unknown; properties?: Record<string, unknown> }
    assert.deepStrictEqual(schema.required, ["feeds"])
    assert.includeMembers(Object.keys(schema.properties ?? {}), ["feeds", "pollInterval", "content", "maxItemsPerPoll"])
  })

  it.effect("two feeds with the same id are refused", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.scoped(
          Connector.makeSource(connector, {
            feeds: [
              { url: "https://a.example/", id: "x" },
              { url: "https://b.example/", id: "x" }
            ]
          })
        )
      )
      assert.include(error.message, "share the id 'x'")
    })
  )
})

describe("layers and registry", () => {
  it.effect("layer(options) provides an RssSource", () =>
    Effect.gen(function* () {
      const source = yield* RssConnector.RssSource
      assert.isFunction(source.events)
    }).pipe(Effect.provide(layer({ feeds: ["https://example.com/feed.xml"] })))
  )

  it.effect("layerConfig reads an Effect Config", () =>
    Effect.gen(function* () {
      const source = yield* RssConnector.RssSource
      assert.isFunction(source.events)
    }).pipe(
      Effect.provide(layerConfig(Config.schema(RssConfig.Config, "rss"))),
      Effect.provide(
        ConfigProvider.layer(ConfigProvider.fromUnknown({ rss: { feeds: ["https://example.com/feed.xml"] } }))
      )
    )
  )

  it.effect("the registry loads it by type through the caller's import", () =>
    Effect.gen(function* () {
      const resolved = yield* ConnectorRegistry.resolve(
        { importModule: (s) => import(/* @vite-ignore */ s), baseDirectory: "." },
        { module: new URL("../src/index.ts", import.meta.url).pathname }
      )
      assert.strictEqual(resolved, connector)
    })
  )
})

describe("HtmlText", () => {
  it("strips tags, decodes entities, normalises whitespace, keeps paragraphs", () => {
    assert.strictEqual(
      HtmlText.toPlainText(
        "<p>Hello&nbsp;<b>world</b> &amp; &#8220;friends&#8221;</p>\n\n\n<p>  second   line<br>third</p><script>alert(1)</script><style>p{}</style>"
      ),
      "Hello\u00a0world & \u201cfriends\u201d\n\nsecond line\nthird".replace("\u00a0", " ")
    )
    assert.strictEqual(HtmlText.toPlainText("  plain   text \n\n\n\n more "), "plain text\n\nmore")
  })
})
