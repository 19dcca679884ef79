import { assert, describe, it } from "@effect/vitest"
import { ConfigField, Connector } from "@warden/connector"
import { Duration, Effect, Redacted } from "effect"
import { connector } from "../src/index.ts"

const channelId = "UCaaaaaaaaaaaaaaaaaaaaaa"
const oauth = { clientId: "id", clientSecret: "secret", refreshToken: "refresh" }

describe("config", () => {
  it("the API key, client secret and refresh token are marked secret; the client id is not", () => {
    assert.deepStrictEqual(
      ConfigField.secretFields(connector.configSchema).map((f) => f.path.join(".")),
      ["apiKey", "clientSecret", "refreshToken"]
    )
  })

  it.effect("defaults, secrets kept Redacted", () =>
    Effect.gen(function* () {
      const config = yield* Connector.decodeConfig(connector, { channelId, ...oauth })
      assert.strictEqual(Duration.toMillis(config.pollInterval), 60_000)
      assert.strictEqual(config.includeReplies, true)
      assert.strictEqual(config.includeHeldForReview, false)
      assert.strictEqual(config.dailyQuota, 10_000)
      assert.strictEqual(config.quotaReserve, 1000)
      assert.strictEqual(config.apiBaseUrl, "https://www.googleapis.com/youtube/v3")
      assert.strictEqual(config.tokenUrl, "https://oauth2.googleapis.com/token")
      assert.isTrue(Redacted.isRedacted(config.refreshToken))
      assert.notInclude(JSON.stringify(config), "secret")
      assert.notInclude(String(config.clientSecret), "secret")
    })
  )

  it.effect("every invalid combination is reported with a clear message", () =>
    Effect.gen(function* () {
      const cases: Array<[unknown, string]> = [
        [{ ...oauth }, "channelId and/or videoIds"],
        [{ channelId, clientId: "id" }, "all of clientId, clientSecret and refreshToken"],
        [{ channelId }, "give apiKey"],
        [{ channelId, apiKey: "k", includeHeldForReview: true }, "need OAuth"],
        [{ channelId, apiKey: "k", dailyQuota: 100, quotaReserve: 100 }, "quotaReserve"],
        [{ channelId: "nope", apiKey: "k" }, "channelId"],
        [{ videoIds: ["short"], apiKey: "k" }, "videoIds"],
        [{ channelId, apiKey: "k", unknown: 1 }, "unknown"]
      ]
      for (const [input, expected] of cases) {
        const error = yield* Effect.flip(Connector.decodeConfig(connector, input))
        assert.strictEqual(error.reason, "InvalidConfig")
        assert.include(error.message, expected, JSON.stringify(input))
      }
      const ok = yield* Connector.decodeConfig(connector, { videoIds: ["dQw4w9WgXcQ"], apiKey: "k" })
      assert.deepStrictEqual(ok.videoIds, ["dQw4w9WgXcQ"])
    })
  )

  it("has a JSON Schema and declares its capabilities", () => {
    const schema = Connector.configJsonSchema(connector) as { properties: Record<string, unknown> }
    for (const key of ["channelId", "videoIds", "apiKey", "clientId", "refreshToken", "dailyQuota", "quotaReserve"]) {
      assert.property(schema.properties, key)
    }
    assert.deepStrictEqual(connector.capabilities.actions, ["holdForReview", "reject", "publish", "restore"])
    assert.strictEqual(connector.type, "youtube")
  })
})
