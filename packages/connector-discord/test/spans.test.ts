/**
 * An action is traced as named spans (`DiscordActions.act`, the kind's own, one `DiscordRest.call` per
 * REST request), with ids only: neither the bot token, the message's text nor the audit-log reason is
 * in a span's name or attributes.
 */
import { assert, describe, it } from "@effect/vitest"
import { recordingTracer } from "@warden/vitest-config/RecordingTracer"
import { Effect, Option } from "effect"
import { GUILD } from "./fixtures/FakeDiscord.ts"
import { GENERAL, readySource, upserts } from "./fixtures/harness.ts"

describe("spans", () => {
  it.live("a delete is named spans (act, delete, DiscordRest.call), without token or text", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { f, source } = yield* readySource()
        const text = "span-content-marker you are awful"
        const m = f.post(GENERAL, { content: text })
        yield* source.until((es) => upserts(es).length >= 1, "the message")
        const { spans, tracer } = recordingTracer()
        const reference = `discord:${GUILD}/${GENERAL}/${m.id}`
        const reason = "span-reason-marker"
        const result = yield* source.act({ kind: "delete", reference, reason }).pipe(Effect.withTracer(tracer))
        assert.deepStrictEqual(result, { status: "done" })

        const named = (name: string) => spans.filter((s) => s.name === name)
        const act = named("DiscordActions.act")
        assert.lengthOf(act, 1)
        assert.strictEqual(act[0]!.attributes.get("warden.action"), "delete")
        assert.strictEqual(act[0]!.attributes.get("warden.reference"), reference)
        const kind = named("DiscordActions.delete")
        assert.lengthOf(kind, 1)
        assert.strictEqual(Option.getOrUndefined(kind[0]!.parent), act[0])
        const calls = named("DiscordRest.call")
        assert.lengthOf(calls, 1)
        assert.strictEqual(
          calls[0]!.attributes.get("discord.operation"),
          `DELETE /channels/${GENERAL}/messages/${m.id}`
        )
        assert.strictEqual(Option.getOrUndefined(calls[0]!.parent), kind[0])
        assert.strictEqual(calls[0]!.status._tag, "Ended")

        const all = spans.map((s) => `${s.name} ${JSON.stringify([...s.attributes.entries()])}`).join("\n")
        assert.notInclude(all, f.token)
        assert.notInclude(all, "span-content-marker")
        assert.notInclude(all, reason)
      })
    )
  )
})
