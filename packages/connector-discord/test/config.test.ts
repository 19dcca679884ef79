import { describe, expect, it } from "@effect/vitest"
import { ConfigField, Connector } from "@warden/connector"
import { Effect, Redacted } from "effect"
import { connector, preview } from "../src/index.ts"
import { GUILD } from "./fixtures/FakeDiscord.ts"
import { configOf, fake, GENERAL, OFFTOPIC } from "./fixtures/harness.ts"

describe("config", () => {
  it("the token is marked secret, so config check warns when it is written inline", () => {
    expect(ConfigField.secretFields(connector.configSchema).map((f) => f.path)).toEqual([["token"]])
    const json = Connector.configJsonSchema(connector) as { properties: Record<string, Record<string, unknown>> }
    expect(json.properties.token?.writeOnly).toBe(true)
  })

  it.effect("decodes with defaults and keeps the token Redacted", () =>
    Effect.gen(function* () {
      const config = yield* Connector.decodeConfig(connector, { token: "secret-token", guilds: [{ id: GUILD }] })
      expect(Redacted.isRedacted(config.token)).toBe(true)
      expect(Redacted.value(config.token)).toBe("secret-token")
      expect(String(config.token)).not.toContain("secret-token")
      expect(JSON.stringify(config)).not.toContain("secret-token")
      expect(config).toMatchObject({
        apiBaseUrl: "https://discord.com/api",
        guilds: [{ id: GUILD, channels: { include: [], exclude: [] } }],
        threads: true,
        ignoreBots: true,
        ignoreRoles: [],
        messages: true,
        attachments: true,
        memberJoins: false,
        reportEmoji: "🚩",
        notHarmfulEmoji: "✅",
        moderatorRoles: [],
        history: 0
      })
    })
  )

  it.effect("reports every problem at once, naming the fields, without echoing the token", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Connector.decodeConfig(connector, {
          token: "secret-token",
          guilds: [{ id: "general" }],
          history: -1,
          colour: "red"
        })
      )
      expect(error.reason).toBe("InvalidConfig")
      expect(error.message).toMatch(/guilds.*0.*id/s)
      expect(error.message).toMatch(/history/)
      expect(error.message).toMatch(/colour/)
      expect(error.message).not.toContain("secret-token")
    })
  )

  it("declares its capabilities and has a JSON Schema", () => {
    expect(connector.type).toBe("discord")
    expect(connector.capabilities).toEqual({
      actions: ["delete", "timeoutAuthor", "react", "modLog", "kick"],
      duplicates: "possible",
      contentTypes: ["text", "image", "username"]
    })
    const schema = Connector.configJsonSchema(connector)
    expect(schema.required).toEqual(expect.arrayContaining(["token", "guilds"]))
  })
})

describe("preview", () => {
  it.live("returns the events of the last N messages", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const ids = Array.from({ length: 6 }, (_, i) => f.post(GENERAL, { content: `m${i}` }).id)
        f.post(OFFTOPIC, { content: "elsewhere" })
        const events = yield* preview(configOf(f, { guilds: [{ id: GUILD, channels: { include: [GENERAL] } }] }), 4, {
          timeout: "5 seconds"
        })
        expect(events.map((e) => (e.kind === "upsert" ? e.reference.split("/").at(-1) : e.kind))).toEqual(ids.slice(2))
      })
    )
  )
})
