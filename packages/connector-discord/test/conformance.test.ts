import type { Conformance } from "@warden/connector/testing"
import { describeConformance } from "@warden/connector/testing"
import { Effect, type Scope } from "effect"
import { connector } from "../src/index.ts"
import { configOf, fake, GENERAL } from "./fixtures/harness.ts"

/** A fake Discord: `publish` posts messages, `stop` makes REST answer 503 and the gateway refuse sockets. */
const setup: Effect.Effect<Conformance.Harness, never, Scope.Scope> = Effect.gen(function* () {
  const f = yield* fake()
  return {
    config: configOf(f, { history: 50 }),
    upstream: {
      publish: (count) =>
        Effect.sync(() => {
          for (let i = 0; i < count; i++) f.post(GENERAL)
        }),
      stop: Effect.sync(() => {
        f.up = false
      }),
      start: Effect.sync(() => {
        f.up = true
      })
    }
  }
})

describeConformance("discord", { connector, setup, timeout: "8 seconds" })
