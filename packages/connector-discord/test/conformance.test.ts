import type { Conformance } from "@warden/connector/testing"
import { describeConformance } from "@warden/connector/testing"
import { Effect, type Scope } from "effect"
import { connector } from "../src/index.ts"
import { GUILD } from "./fixtures/FakeDiscord.ts"
import { configOf, fake, GENERAL } from "./fixtures/harness.ts"

/**
 * A fake Discord: `publish` posts messages, `edit`/`remove` edit and delete them (MESSAGE_UPDATE /
 * MESSAGE_DELETE on the gateway), `actionsDone` lists the message deletions the REST API executed;
 * `stop` makes REST answer 503 and the gateway refuse sockets.
 */
const setup: Effect.Effect<Conformance.Harness, never, Scope.Scope> = Effect.gen(function* () {
  const f = yield* fake()
  const posted: Array<string> = []
  return {
    config: configOf(f, { history: 50 }),
    upstream: {
      publish: (count) =>
        Effect.sync(() => {
          for (let i = 0; i < count; i++) posted.push(f.post(GENERAL).id)
        }),
      stop: Effect.sync(() => {
        f.up = false
      }),
      start: Effect.sync(() => {
        f.up = true
      }),
      edit: (index) => Effect.sync(() => f.edit(GENERAL, posted[index - 1]!, `edited message ${index}`)),
      remove: (index) => Effect.sync(() => f.remove(GENERAL, posted[index - 1]!)),
      actionsDone: Effect.sync(() =>
        f.recorded.flatMap((r) => {
          const deleted = r.method === "DELETE" ? /^\/channels\/(\d+)\/messages\/(\d+)$/u.exec(r.path) : null
          return deleted === null ? [] : [{ kind: "delete", reference: `discord:${GUILD}/${deleted[1]}/${deleted[2]}` }]
        })
      )
    }
  }
})

describeConformance("discord", { connector, setup, timeout: "8 seconds" })
