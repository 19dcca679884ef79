import { assert, describe, it } from "@effect/vitest"
import { Connector, SourceEvent } from "@warden/connector"
import { Effect, Option, Stream } from "effect"
import { connector } from "../src/index.ts"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"
import { fast, lastCheckpoint } from "./fixtures/run.ts"

const moderationCalls = (fake: FakeYouTube.Fake) => fake.calls("/youtube/v3/comments/setModerationStatus")
/** How many ids each setModerationStatus call carried, in order. */
const idsPerCall = (fake: FakeYouTube.Fake) => moderationCalls(fake).map((call) => call.params.id!.split(",").length)
const statusOf = (fake: FakeYouTube.Fake, id: string) => fake.state.comments.find((c) => c.id === id)!.status

const oauthSource = (fake: FakeYouTube.Fake) =>
  Connector.makeSource(connector, { channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast })

describe("restore", () => {
  it.live("a held comment restored is published again; a repeat within 10 minutes is alreadyDone, no call", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const c = fake.add({ text: "borderline" })
        const source = yield* oauthSource(fake)
        const reference = `youtube:${c.id}`
        assert.strictEqual((yield* source.act!({ kind: "holdForReview", reference })).status, "done")
        assert.strictEqual(statusOf(fake, c.id), "heldForReview")

        const restored = yield* source.act!({ kind: "restore", reference, reason: "restored by a moderator" })
        assert.strictEqual(restored.status, "done")
        assert.strictEqual(statusOf(fake, c.id), "published")
        const call = moderationCalls(fake)[1]!
        assert.strictEqual(call.method, "POST")
        assert.deepStrictEqual(call.params, { id: c.id, moderationStatus: "published" })
        assert.strictEqual(fake.state.quotaUsed, 100, "50 units per setModerationStatus call")

        // The daemon retrying after a lost answer: no second 50-unit call.
        const again = yield* source.act!({ kind: "restore", reference })
        assert.strictEqual(again.status, "alreadyDone")
        assert.strictEqual(moderationCalls(fake).length, 2)
        assert.strictEqual(fake.state.quotaUsed, 100)

        // Held again afterwards: the hold reaches YouTube (it is not the last status set).
        assert.strictEqual((yield* source.act!({ kind: "holdForReview", reference })).status, "done")
        assert.strictEqual(statusOf(fake, c.id), "heldForReview")
      })
    )
  )

  it.live("restoring a comment never hidden: YouTube accepts it (204), so done, and it stays published", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const c = fake.add({})
        const source = yield* oauthSource(fake)
        const result = yield* source.act!({ kind: "restore", reference: `youtube:${c.id}` })
        assert.strictEqual(result.status, "done")
        assert.strictEqual(statusOf(fake, c.id), "published")
        assert.strictEqual(moderationCalls(fake).length, 1)
        assert.strictEqual(fake.state.quotaUsed, 50)
      })
    )
  )

  it.live("a rejected comment cannot be restored: the action fails saying so; one batched with it is restored", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const rejected = fake.add({ status: "rejected" })
        const held = fake.add({ status: "heldForReview" })
        const source = yield* oauthSource(fake)
        const [a, b] = yield* Effect.all(
          [
            Effect.flip(source.act!({ kind: "restore", reference: `youtube:${rejected.id}` })),
            source.act!({ kind: "restore", reference: `youtube:${held.id}` })
          ],
          { concurrency: "unbounded" }
        )
        assert.strictEqual(a.reason, "Invalid")
        assert.isFalse(a.retryable, "retrying cannot help")
        assert.include(a.message, "processingFailure")
        assert.include(a.message, "a reject cannot be restored")
        assert.strictEqual(b.status, "done")
        assert.strictEqual(statusOf(fake, held.id), "published")
        assert.strictEqual(statusOf(fake, rejected.id), "rejected")
        // The batch of two was refused as a whole, then each id went alone.
        assert.deepStrictEqual(idsPerCall(fake), [2, 1, 1])
      })
    )
  )

  it.live("the calls of each id alone, after a refused batch, stop when the quota left cannot pay for them", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const rejected = fake.add({ status: "rejected" })
        const held = fake.add({ status: "heldForReview" })
        // 100 units: the batch of two (50) and one id alone (50), not a second
        const source = yield* Connector.makeSource(connector, {
          channelId: FakeYouTube.channelId,
          ...fake.oauthConfig,
          ...fast,
          dailyQuota: 100,
          quotaReserve: 0
        })
        const [a, b] = yield* Effect.all(
          [
            Effect.flip(source.act!({ kind: "restore", reference: `youtube:${rejected.id}` })),
            Effect.flip(source.act!({ kind: "restore", reference: `youtube:${held.id}` }))
          ],
          { concurrency: "unbounded" }
        )
        assert.strictEqual(a.reason, "Invalid")
        assert.strictEqual(b.reason, "RateLimited")
        assert.isTrue(b.retryable, "after the quota's reset")
        assert.deepStrictEqual(idsPerCall(fake), [2, 1])
        assert.strictEqual(fake.state.quotaUsed, 100)
        assert.strictEqual(statusOf(fake, held.id), "heldForReview")
      })
    )
  )

  it.live("YouTube saying the quota is spent during the calls of each id alone stops them", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const rejected = fake.add({ status: "rejected" })
        const held = [fake.add({ status: "heldForReview" }), fake.add({ status: "heldForReview" })]
        // the project's quota (shared with other clients) ends after the batch and one id alone
        fake.state.quotaLimit = 100
        const source = yield* oauthSource(fake)
        const failures = yield* Effect.all(
          [rejected, ...held].map((c) => Effect.flip(source.act!({ kind: "restore", reference: `youtube:${c.id}` }))),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          failures.map((f) => f.reason),
          ["Invalid", "RateLimited", "RateLimited"]
        )
        // the batch, the rejected id alone, the first held id refused for quota; not the second
        assert.deepStrictEqual(idsPerCall(fake), [3, 1, 1])
      })
    )
  )

  it.live("a restored comment is no longer watched for a moderator's approval: no reversal follows", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const restored = fake.add({ text: "restored" })
        const stillHeld = fake.add({ text: "still held" })
        const source = yield* oauthSource(fake)
        yield* source.act!({ kind: "holdForReview", reference: `youtube:${restored.id}` })
        yield* source.act!({ kind: "holdForReview", reference: `youtube:${stillHeld.id}` })
        yield* source.act!({ kind: "restore", reference: `youtube:${restored.id}` })
        // One poll: it reads the published comments and checks the held ones.
        const events = Array.from(yield* Stream.runCollect(source.pollOnce!(Option.none())))
        assert.deepStrictEqual(
          events.map((e) => `${e.kind} ${SourceEvent.isItemEvent(e) ? e.reference : ""}`),
          [`upsert youtube:${restored.id}`],
          "the restored comment is read again as published, and is no reversal"
        )
        const checkpoint = lastCheckpoint(events) as { held: Record<string, string> }
        assert.deepStrictEqual(Object.keys(checkpoint.held), [stillHeld.id])
      })
    )
  )
})
