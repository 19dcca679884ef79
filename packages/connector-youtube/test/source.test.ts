import { assert, describe, it } from "@effect/vitest"
import { Connector, ConnectorError, type SourceEvent } from "@warden/connector"
import { Cause, Effect, Exit, Fiber, Option, Redacted } from "effect"
import { connector, OAuth, QuotaBudget, YouTubeApi } from "../src/index.ts"
import { apiClient } from "./fixtures/client.ts"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"
import { collect, collectFrom, errors, fast, lastCheckpoint, upserts, watchPast } from "./fixtures/run.ts"

const failureOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined

describe("OAuth", () => {
  it.live("the access token is cached, sent as a bearer token and refreshed before it expires", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // 60.5 s lifetime: inside the 60 s refresh margin after half a second.
        const fake = yield* FakeYouTube.make({ expiresIn: 60.5 })
        const { tokens } = yield* apiClient(fake)
        const a = yield* tokens.token
        const b = yield* tokens.token
        assert.strictEqual(Redacted.value(a), Redacted.value(b))
        assert.strictEqual(fake.state.tokensIssued, 1)
        const form = new URLSearchParams(fake.calls("/token")[0]!.body)
        assert.strictEqual(form.get("grant_type"), "refresh_token")
        assert.strictEqual(form.get("refresh_token"), fake.state.refreshToken)
        yield* Effect.sleep("600 millis")
        const c = yield* tokens.token
        assert.notStrictEqual(Redacted.value(c), Redacted.value(a))
        assert.strictEqual(fake.state.tokensIssued, 2)
        assert.notInclude(String(c), "access-", "a token prints redacted")
      })
    )
  )

  it.live("a 401 with OAuth refreshes the token and tries once more, only once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const { client } = yield* apiClient(fake)
        const list = client.list(
          "videos.list",
          "/videos",
          { part: "snippet", id: FakeYouTube.videoA },
          YouTubeApi.VideoListResponse
        )
        yield* list
        fake.state.validTokens.clear() // revoked early
        const answer = yield* list
        assert.strictEqual(answer.items[0]!.snippet.title, "Video A")
        assert.strictEqual(fake.state.tokensIssued, 2)
        assert.strictEqual(fake.calls("/youtube/v3/videos").length, 3)
        // Still 401 after a fresh token: an Unauthorized error, no third try.
        fake.state.validTokens.clear()
        const original = fake.state.validTokens.add.bind(fake.state.validTokens)
        fake.state.validTokens.add = (_token: string) => fake.state.validTokens
        const error = yield* Effect.flip(list)
        fake.state.validTokens.add = original
        assert.strictEqual(error._tag === "ApiError" ? error.kind : error._tag, "Unauthorized")
        assert.strictEqual(fake.calls("/youtube/v3/videos").length, 5)
      })
    )
  )

  it.live("the source sends the bearer token to the API", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.add({})
        const { events } = yield* collect(
          { channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast },
          (es) => upserts(es).length >= 1
        )
        assert.strictEqual(upserts(events).length, 1)
        const call = fake.calls("/youtube/v3/commentThreads")[0]!
        assert.strictEqual(call.headers.authorization, "Bearer access-1")
        assert.isUndefined(call.params.key)
      })
    )
  )

  it.live("invalid_grant fails the source once, clearly, without retrying and without secrets", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.state.revoked = true
        const { events, exit } = yield* collect(
          { channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast },
          () => false,
          { timeout: "2 seconds" }
        )
        assert.strictEqual(events.length, 0)
        const error = failureOf(exit)
        assert.instanceOf(error, ConnectorError.ConnectorError)
        const e = error as ConnectorError.ConnectorError
        assert.strictEqual(e.reason, "Unauthorized")
        assert.isFalse(e.retryable)
        assert.include(e.message, "invalid_grant")
        assert.include(e.message, "revoked")
        assert.include(e.message, "7 days")
        assert.notInclude(e.message, fake.state.refreshToken)
        assert.notInclude(e.message, fake.state.clientSecret)
        assert.strictEqual(fake.calls("/token").length, 1, "not retried")
        assert.strictEqual(fake.calls("/youtube/v3/commentThreads").length, 0)
      })
    )
  )

  it.live("the token provider reports invalid_grant as its own kind", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.state.revoked = true
        const { tokens } = yield* apiClient(fake)
        const error = yield* Effect.flip(tokens.token)
        assert.strictEqual(error.kind, "InvalidGrant")
        assert.strictEqual(error.message, OAuth.invalidGrantMessage)
      })
    )
  )
})

describe("quota", () => {
  it.live("quotaExceeded pauses the source until midnight Pacific, with one error event", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.add({})
        fake.state.quotaLimit = 0
        const { events } = yield* collect(
          { channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast },
          () => false,
          {
            stopWhen: watchPast((es) => errors(es).length > 0),
            timeout: "60 seconds"
          }
        )
        const errs = errors(events)
        assert.strictEqual(errs.length, 1)
        assert.strictEqual(errs[0]!.reason, "QuotaExceeded")
        assert.include(errs[0]!.message, "quotaExceeded")
        const untilMidnight = QuotaBudget.nextPacificMidnight(Date.now()) - Date.now()
        assert.approximately(errs[0]!.retryInMillis, untilMidnight, 5000)
        assert.strictEqual(fake.calls("/youtube/v3/commentThreads").length, 1, "no call while paused")
      })
    )
  )

  it.live("polling stops short of the action reserve", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.add({})
        // 3 units for polling: the first poll (threads + title = 2) then nothing until the reset.
        const { events } = yield* collect(
          { channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast, dailyQuota: 53, quotaReserve: 50 },
          () => false,
          { stopWhen: watchPast((es) => upserts(es).length > 0), timeout: "60 seconds" }
        )
        assert.strictEqual(upserts(events).length, 1)
        assert.strictEqual(errors(events).length, 0)
        assert.isAtMost(fake.state.quotaUsed, 3)
      })
    )
  )

  it.live("the checkpoint carries the units spent today", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        fake.add({})
        const { events } = yield* collect(
          { channelId: FakeYouTube.channelId, ...fake.keyConfig, ...fast },
          (es) => upserts(es).length >= 1
        )
        const checkpoint = lastCheckpoint(events) as { quota: { used: number } }
        assert.strictEqual(checkpoint.quota.used, fake.state.quotaUsed)
      })
    )
  )
})

describe("quiet polls", () => {
  it.live(
    "a poll that finds no new comment hands over a progress event: where the source stands, quota spent included",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const fake = yield* FakeYouTube.make()
          fake.add({})
          const { events } = yield* collect(
            { channelId: FakeYouTube.channelId, ...fake.keyConfig, ...fast },
            (es) => es.filter((e) => e.kind === "progress").length >= 2
          )
          assert.deepStrictEqual(
            events.map((e) => e.kind),
            ["upsert", "progress", "progress"]
          )
          const [, first, second] = events as [unknown, SourceEvent.Progress, SourceEvent.Progress]
          const cursor = (c: unknown) => (c as { scopes: unknown }).scopes
          assert.deepStrictEqual(cursor(first.checkpoint), cursor(upserts(events)[0]!.checkpoint))
          // Each poll spends quota: the checkpoint the daemon commits says so.
          const used = (c: unknown) => (c as { quota: { used: number } }).quota.used
          assert.isAbove(used(second.checkpoint), used(first.checkpoint))
          assert.strictEqual(used(second.checkpoint), fake.state.quotaUsed)
        })
      )
  )
})

describe("actions", () => {
  it.live("actions within the window go out as one setModerationStatus call per status", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const cs = [fake.add({}), fake.add({}), fake.add({}), fake.add({})]
        const source = yield* Connector.makeSource(connector, {
          channelId: FakeYouTube.channelId,
          ...fake.oauthConfig,
          ...fast
        })
        const results = yield* Effect.all(
          [
            source.act!({ kind: "holdForReview", reference: `youtube:${cs[0]!.id}` }),
            source.act!({ kind: "holdForReview", reference: `youtube:${cs[1]!.id}` }),
            source.act!({ kind: "holdForReview", reference: `youtube:${cs[2]!.id}` }),
            source.act!({ kind: "reject", reference: `youtube:${cs[3]!.id}`, params: { banAuthor: true } })
          ],
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          results.map((r) => r.status),
          ["done", "done", "done", "done"]
        )
        const calls = fake.calls("/youtube/v3/comments/setModerationStatus")
        assert.strictEqual(calls.length, 2)
        const held = calls.find((c) => c.params.moderationStatus === "heldForReview")!
        assert.deepStrictEqual(held.params.id!.split(",").sort(), [cs[0]!.id, cs[1]!.id, cs[2]!.id].sort())
        const rejected = calls.find((c) => c.params.moderationStatus === "rejected")!
        assert.strictEqual(rejected.params.id, cs[3]!.id)
        assert.strictEqual(rejected.params.banAuthor, "true")
        assert.strictEqual(held.method, "POST")
        assert.deepStrictEqual(
          fake.state.comments.map((c) => c.status),
          ["heldForReview", "heldForReview", "heldForReview", "rejected"]
        )
        assert.strictEqual(fake.state.quotaUsed, 100)
      })
    )
  )

  it.live("more than 50 ids are split into calls of 50", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const cs = Array.from({ length: 60 }, () => fake.add({}))
        const source = yield* Connector.makeSource(connector, {
          channelId: FakeYouTube.channelId,
          ...fake.oauthConfig,
          ...fast
        })
        yield* Effect.forEach(cs, (c) => source.act!({ kind: "holdForReview", reference: `youtube:${c.id}` }), {
          concurrency: "unbounded"
        })
        const calls = fake.calls("/youtube/v3/comments/setModerationStatus")
        assert.deepStrictEqual(
          calls.map((c) => c.params.id!.split(",").length),
          [50, 10]
        )
      })
    )
  )

  it.live("a missing comment in a batch: the others are done, it is notFound", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const c = fake.add({})
        const source = yield* Connector.makeSource(connector, {
          channelId: FakeYouTube.channelId,
          ...fake.oauthConfig,
          ...fast
        })
        const [a, b] = yield* Effect.all(
          [
            source.act!({ kind: "holdForReview", reference: `youtube:${c.id}` }),
            source.act!({ kind: "holdForReview", reference: "youtube:Ugdeleted" })
          ],
          { concurrency: "unbounded" }
        )
        assert.strictEqual(a.status, "done")
        assert.strictEqual(b.status, "notFound")
        assert.strictEqual(fake.state.comments[0]!.status, "heldForReview")
      })
    )
  )

  it.live("errors: unsupported kinds, API-key sources, bad references, quota and permissions", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const c = fake.add({})
        const keySource = yield* Connector.makeSource(connector, {
          channelId: FakeYouTube.channelId,
          ...fake.keyConfig,
          ...fast
        })
        const denied = yield* Effect.flip(keySource.act!({ kind: "holdForReview", reference: `youtube:${c.id}` }))
        assert.strictEqual(denied.reason, "PermissionDenied")
        assert.include(denied.message, "OAuth")
        const source = yield* Connector.makeSource(connector, {
          channelId: FakeYouTube.channelId,
          ...fake.oauthConfig,
          ...fast
        })
        const unsupported = yield* Effect.flip(source.act!({ kind: "timeoutAuthor", reference: `youtube:${c.id}` }))
        assert.strictEqual(unsupported.reason, "Unsupported")
        const invalid = yield* Effect.flip(source.act!({ kind: "hide", reference: `rss:x/y` }))
        assert.strictEqual(invalid.reason, "Unsupported")
        const bad = yield* Effect.flip(source.act!({ kind: "publish", reference: "rss:x/y" }))
        assert.strictEqual(bad.reason, "Invalid")
        fake.state.moderationFailure = { status: 403, reason: "quotaExceeded" }
        const quota = yield* Effect.flip(source.act!({ kind: "publish", reference: `youtube:${c.id}` }))
        assert.strictEqual(quota.reason, "RateLimited")
        assert.isTrue(quota.retryable)
        assert.isAbove(quota.retryAfterMillis ?? 0, 0)
        // The budget now knows the quota is spent: no further call goes out.
        const before = fake.calls("/youtube/v3/comments/setModerationStatus").length
        const again = yield* Effect.flip(source.act!({ kind: "publish", reference: `youtube:${c.id}` }))
        assert.strictEqual(again.reason, "RateLimited")
        assert.strictEqual(fake.calls("/youtube/v3/comments/setModerationStatus").length, before)
      })
    )
  )

  it.live("a moderator's approval of a comment Warden held is a reversal", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const c = fake.add({ text: "borderline" })
        const other = fake.add({ text: "held and then rejected" })
        const source = yield* Connector.makeSource(connector, {
          channelId: FakeYouTube.channelId,
          ...fake.oauthConfig,
          ...fast
        })
        // The wait ends with the reversal; the long timeout only matters on a loaded machine.
        const run = yield* Effect.forkChild(
          collectFrom(source, (es) => es.some((e) => e.kind === "reversal"), { timeout: "20 seconds" })
        )
        // Act once the source has polled (not after a fixed sleep: under load it may not have yet).
        for (let i = 0; i < 500 && fake.calls("/youtube/v3/commentThreads").length === 0; i++) {
          yield* Effect.sleep("20 millis")
        }
        yield* Effect.sleep("300 millis")
        yield* source.act!({ kind: "holdForReview", reference: `youtube:${c.id}` })
        yield* source.act!({ kind: "holdForReview", reference: `youtube:${other.id}` })
        yield* Effect.sleep("300 millis")
        // In YouTube Studio: one approved, the other removed.
        fake.state.comments[0]!.status = "published"
        fake.state.comments[1]!.status = "rejected"
        const { events } = yield* Fiber.join(run)
        const reversals = events.flatMap((e) => (e.kind === "reversal" ? [e] : []))
        assert.strictEqual(reversals.length, 1)
        assert.strictEqual(reversals[0]!.reference, `youtube:${c.id}`)
        assert.strictEqual(reversals[0]!.action, "holdForReview")
        assert.strictEqual(upserts(events).filter((e) => e.reference === `youtube:${c.id}`).length, 1, "no new upsert")
        const checkpoint = reversals[0]!.checkpoint as { held: Record<string, string> }
        assert.notProperty(checkpoint.held, c.id)
        assert.property(checkpoint.held, other.id, "rejected ones are watched a while (not returned by id)")
      })
    )
  )
})
