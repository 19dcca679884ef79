import type { Conformance } from "@warden/connector/testing"
import { describeConformance } from "@warden/connector/testing"
import { Effect, type Scope } from "effect"
import { connector } from "../src/index.ts"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"
import { fast } from "./fixtures/run.ts"

/** A real fake Data API: `publish` adds comments, `stop` makes it answer 503 backendError. */
const setup: Effect.Effect<Conformance.Harness, never, Scope.Scope> = Effect.gen(function* () {
  const fake = yield* FakeYouTube.make()
  return {
    config: { channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast },
    upstream: {
      publish: (count) =>
        Effect.sync(() => {
          for (let i = 0; i < count; i++) fake.add({})
        }),
      stop: Effect.sync(() => {
        fake.state.up = false
      }),
      start: Effect.sync(() => {
        fake.state.up = true
      })
    }
  }
})

describeConformance("youtube", { connector, setup, timeout: "5 seconds" })
