/**
 * Connectors by `type:`: every first-party connector loads in the repository; a typo gets the closest
 * first-party type; a first-party type that is not installed names the exact npm package.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Connectors from "../src/config/Connectors.ts"

describe("connectors by type", () => {
  it.effect.each(["rss", "discord", "youtube"])("type %s loads in the repository", (type) =>
    Effect.gen(function* () {
      const connector = yield* Connectors.resolve(process.cwd(), { type })
      assert.strictEqual(connector.type, type)
    })
  )

  it.effect("an unknown type is refused with the closest first-party type", () =>
    Effect.gen(function* () {
      const error = yield* Connectors.resolve(process.cwd(), { type: "rsss" }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "ConnectorNotFound")
      assert.include(error.message, "unknown connector type 'rsss'; did you mean rss?")
      assert.include(error.message, "module:")
    })
  )

  it("a first-party type that is not installed names its npm package and how to install it", () => {
    assert.strictEqual(
      Connectors.notFoundMessage("discord"),
      "connector type 'discord' is the npm package @warden/connector-discord, which is not installed: run `npm install @warden/connector-discord` where @warden/daemon is installed"
    )
  })
})
