import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"
import { collect, errors, fast, watchPast } from "./fixtures/run.ts"

/** Captures every log line (message and annotations) of `effect`. */
const captureLogs = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const logger = Logger.make(({ message, fiber }) => {
      lines.push(inspect([message, fiber.getRef(References.CurrentLogAnnotations)], { depth: 10 }))
    })
    const result = yield* effect.pipe(Effect.provide(Logger.layer([logger])))
    return { result, lines }
  })

describe("logs", () => {
  it.live("quotaExceeded: exactly one clear log line naming the reset", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.add({})
        fake.state.quotaLimit = 0
        const { result, lines } = yield* captureLogs(
          collect({ channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast }, () => false, {
            // Watch ten poll intervals past the quota error for a second line; the timeout is a hang guard.
            stopWhen: watchPast((events) => errors(events).length > 0),
            timeout: "60 seconds"
          })
        )
        assert.strictEqual(errors(result.events).length, 1)
        const quotaLines = lines.filter((l) => l.includes("quota"))
        assert.strictEqual(quotaLines.length, 1, lines.join("\n"))
        assert.include(quotaLines[0]!, "quotaExceeded")
        assert.include(quotaLines[0]!, "midnight Pacific")
      })
    )
  )

  it.live("no secret reaches a log line or an event, whatever fails", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.add({})
        fake.state.up = false
        const config = { channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast }
        const down = yield* captureLogs(collect(config, (es) => errors(es).length >= 2))
        fake.state.up = true
        fake.state.broken = true
        const broken = yield* captureLogs(collect(config, (es) => errors(es).length >= 1))
        fake.state.revoked = true
        fake.state.validTokens.clear()
        const revoked = yield* captureLogs(collect(config, () => false, { timeout: "1 second" }))
        const keyed = yield* captureLogs(
          collect({ channelId: FakeYouTube.channelId, ...fake.keyConfig, ...fast }, (es) => errors(es).length >= 1)
        )
        const everything = [down, broken, revoked, keyed]
          .flatMap((r) => [...r.lines, JSON.stringify(r.result.events), inspect(r.result.exit, { depth: 10 })])
          .join("\n")
        assert.isAbove(down.lines.length, 0)
        assert.include(everything, "totalReplyCount", "the decode error names the field")
        for (const secret of [fake.state.clientSecret, fake.state.refreshToken, fake.state.apiKey, "access-1"]) {
          assert.notInclude(everything, secret)
        }
      })
    )
  )
})
