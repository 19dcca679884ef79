import { assert, describe, it } from "@effect/vitest"
import { Preview } from "@warden/connector"
import { Effect } from "effect"
import { connector } from "../src/index.ts"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"

describe("preview", () => {
  it.live("Preview.preview returns the first comments of a config as a user writes it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        for (let i = 1; i <= 5; i++) fake.add({ text: `comment ${i}` })
        const events = yield* Preview.preview(
          connector,
          { videoIds: [FakeYouTube.videoA], ...fake.keyConfig, pollInterval: "1 second" },
          3,
          { timeout: "5 seconds" }
        )
        assert.deepStrictEqual(
          events.map((e) => (e.kind === "upsert" && e.content.type === "text" ? e.content.text : e.kind)),
          ["comment 1", "comment 2", "comment 3"]
        )
        assert.strictEqual(fake.calls("/youtube/v3/commentThreads")[0]!.params.videoId, FakeYouTube.videoA)
      })
    )
  )

  it.live("an unreachable API fails the preview at once with a ConnectorError, without the API key", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.state.up = false
        const error = yield* Effect.flip(
          Preview.preview(connector, { videoIds: [FakeYouTube.videoA], ...fake.keyConfig }, 1, {
            timeout: "1 minute"
          })
        )
        assert.strictEqual(error._tag, "ConnectorError")
        assert.strictEqual(error.reason, "Unavailable")
        assert.notInclude(JSON.stringify(error), fake.state.apiKey)
      })
    )
  )
})
