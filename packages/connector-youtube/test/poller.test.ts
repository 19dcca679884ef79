import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CommentPoller, YouTubeCheckpoint } from "../src/index.ts"
import { apiClient } from "./fixtures/client.ts"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"

const options = (overrides: Partial<CommentPoller.PollOptions> = {}): CommentPoller.PollOptions => ({
  scopes: [
    { key: `channel:${FakeYouTube.channelId}`, params: { allThreadsRelatedToChannelId: FakeYouTube.channelId } }
  ],
  includeReplies: true,
  overlapMillis: 2000,
  backfillMillis: 86_400_000,
  maxPages: 20,
  now: Date.now(),
  ...overrides
})

const texts = (outcome: CommentPoller.PollOutcome) =>
  outcome.events.map((e) => (e.content.type === "text" ? e.content.text : ""))

describe("CommentPoller", () => {
  it.live("pages back to the high-water mark minus the overlap, oldest first, without repeats", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make({ pageSize: 3 })
        const { client } = yield* apiClient(fake)
        const titles = new CommentPoller.TitleCache()
        for (let i = 1; i <= 7; i++) fake.add({ text: `c${i}` })
        const threadCalls = () => fake.calls("/youtube/v3/commentThreads")

        const first = yield* CommentPoller.poll(client, titles, YouTubeCheckpoint.empty, options())
        assert.deepStrictEqual(texts(first), ["c1", "c2", "c3", "c4", "c5", "c6", "c7"])
        assert.strictEqual(threadCalls().length, 3, "7 threads at 3 per page: every page on the first poll")
        assert.deepStrictEqual(
          threadCalls().map((r) => [r.params.part, r.params.order, r.params.maxResults, r.params.textFormat]),
          Array(3).fill(["snippet,replies", "time", "100", "plainText"])
        )
        assert.deepStrictEqual(
          threadCalls().map((r) => r.params.pageToken),
          [undefined, "3", "6"]
        )

        // Nothing new: pages down to c7 - 2 s (= c5) only: page 1 (c7 c6 c5) and page 2 reaches below.
        const second = yield* CommentPoller.poll(client, titles, first.state, options())
        assert.deepStrictEqual(texts(second), [])
        assert.strictEqual(threadCalls().length, 5)

        fake.add({ text: "c8" })
        const third = yield* CommentPoller.poll(client, titles, second.state, options())
        assert.deepStrictEqual(texts(third), ["c8"], "dedupe by id: the overlap re-reads c5..c7 silently")
        assert.strictEqual(
          third.state.scopes[`channel:${FakeYouTube.channelId}`]!.hwm,
          fake.state.comments.at(-1)!.publishedAt
        )
      })
    )
  )

  it.live("a comment published late below the high-water mark but within the overlap is not missed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const { client } = yield* apiClient(fake)
        const titles = new CommentPoller.TitleCache()
        const c1 = fake.add({ text: "c1" })
        const first = yield* CommentPoller.poll(
          client,
          titles,
          YouTubeCheckpoint.empty,
          options({ overlapMillis: 60_000 })
        )
        // Indexed late: its publishedAt is 30 s before the newest seen.
        fake.add({ text: "late", publishedAt: new Date(Date.parse(c1.publishedAt) - 30_000).toISOString() })
        const second = yield* CommentPoller.poll(client, titles, first.state, options({ overlapMillis: 60_000 }))
        assert.deepStrictEqual(texts(second), ["late"])
      })
    )
  )

  it.live("an updatedAt change is an edit: the same reference again with the new text", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const { client } = yield* apiClient(fake)
        const titles = new CommentPoller.TitleCache()
        const c = fake.add({ text: "first version" })
        const first = yield* CommentPoller.poll(client, titles, YouTubeCheckpoint.empty, options())
        fake.edit(c.id, "second version")
        const second = yield* CommentPoller.poll(client, titles, first.state, options())
        assert.deepStrictEqual(texts(second), ["second version"])
        assert.strictEqual(second.events[0]!.reference, `youtube:${c.id}`)
        assert.strictEqual(second.state.seen[c.id], fake.state.comments[0]!.updatedAt)
        const third = yield* CommentPoller.poll(client, titles, second.state, options())
        assert.deepStrictEqual(texts(third), [])
      })
    )
  )

  it.live("replies beyond the inline subset are paged with comments.list, and only when the count changed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make({ inlineReplies: 2, pageSize: 3 })
        const { client } = yield* apiClient(fake)
        const titles = new CommentPoller.TitleCache()
        const top = fake.add({ text: "top" })
        for (let i = 1; i <= 7; i++) fake.add({ text: `r${i}`, parentId: top.id })
        const replyCalls = () => fake.calls("/youtube/v3/comments").filter((r) => r.params.parentId === top.id)

        const first = yield* CommentPoller.poll(client, titles, YouTubeCheckpoint.empty, options())
        assert.deepStrictEqual(texts(first), ["top", "r1", "r2", "r3", "r4", "r5", "r6", "r7"])
        assert.strictEqual(replyCalls().length, 3, "7 replies at 3 per page")
        const reply = first.events.find((e) => e.content.type === "text" && e.content.text === "r1")!
        assert.deepStrictEqual(reply.thread, {
          parentReference: `youtube:${top.id}`,
          topLevelReference: `youtube:${top.id}`
        })
        assert.isUndefined(first.events[0]!.thread)

        const second = yield* CommentPoller.poll(client, titles, first.state, options())
        assert.deepStrictEqual(texts(second), [])
        assert.strictEqual(replyCalls().length, 3, "count unchanged: no comments.list")

        // A new reply to the (older) thread: the count grew, its replies are paged again.
        fake.add({ text: "r8", parentId: top.id })
        const third = yield* CommentPoller.poll(client, titles, second.state, options({ overlapMillis: 60_000 }))
        assert.deepStrictEqual(texts(third), ["r8"])
        assert.strictEqual(replyCalls().length, 6)
      })
    )
  )

  it.live("events carry the video as post (title from videos.list, cached), the author and permalinks", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const { client } = yield* apiClient(fake, "key")
        const titles = new CommentPoller.TitleCache()
        const c = fake.add({ text: "hello", author: "bob", videoId: FakeYouTube.videoB })
        const first = yield* CommentPoller.poll(client, titles, YouTubeCheckpoint.empty, options())
        const event = first.events[0]!
        assert.deepStrictEqual(event.post, {
          title: "Video B",
          reference: FakeYouTube.videoB,
          permalink: `https://www.youtube.com/watch?v=${FakeYouTube.videoB}`
        })
        assert.strictEqual(event.author?.identifier, `UC${"bob".padEnd(22, "x")}`)
        assert.strictEqual(event.author?.username, "bob")
        assert.strictEqual(event.permalink, `https://www.youtube.com/watch?v=${FakeYouTube.videoB}&lc=${c.id}`)
        assert.strictEqual(event.publishedAt, c.publishedAt)
        fake.add({ text: "again", videoId: FakeYouTube.videoB })
        yield* CommentPoller.poll(client, titles, first.state, options())
        assert.strictEqual(fake.calls("/youtube/v3/videos").length, 1, "the title is cached")
        assert.strictEqual(fake.calls("/youtube/v3/videos")[0]!.params.key, fake.state.apiKey)
      })
    )
  )

  it.live("an author the API gives no channel id is named by their channel URL, else their display name", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const { client } = yield* apiClient(fake, "key")
        fake.add({ text: "with a channel", author: "ann" })
        fake.add({ text: "a URL only", author: "bea", channel: "url" })
        fake.add({ text: "no channel", author: "@cyd", channel: "none" })
        const polled = yield* CommentPoller.poll(
          client,
          new CommentPoller.TitleCache(),
          YouTubeCheckpoint.empty,
          options()
        )
        assert.deepStrictEqual(
          Object.fromEntries(
            polled.events.map((e) => [e.content.type === "text" ? e.content.text : "", e.author?.identifier])
          ),
          {
            "with a channel": `UC${"ann".padEnd(22, "x")}`,
            "a URL only": `http://www.youtube.com/channel/UC${"bea".padEnd(22, "x")}`,
            "no channel": "name:@cyd"
          }
        )
      })
    )
  )

  it.live("quota accounting matches the fake's count of units", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make({ pageSize: 2, inlineReplies: 1 })
        const { client, budget } = yield* apiClient(fake)
        const titles = new CommentPoller.TitleCache()
        const top = fake.add({ videoId: FakeYouTube.videoA })
        fake.add({ parentId: top.id })
        fake.add({ parentId: top.id })
        fake.add({ videoId: FakeYouTube.videoB })
        fake.add({ videoId: FakeYouTube.videoB })
        const first = yield* CommentPoller.poll(client, titles, YouTubeCheckpoint.empty, options())
        yield* CommentPoller.poll(client, titles, first.state, options())
        assert.isAbove(fake.state.quotaUsed, 3)
        const spent = yield* budget.snapshot
        assert.strictEqual(spent.used, fake.state.quotaUsed)
        assert.strictEqual(yield* budget.remaining, 10_000 - fake.state.quotaUsed)
      })
    )
  )

  it.live("an unexpected payload fails the poll with an InvalidResponse naming the field", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeYouTube.make()
        const { client } = yield* apiClient(fake)
        fake.add({})
        fake.state.broken = true
        const error = yield* Effect.flip(
          CommentPoller.poll(client, new CommentPoller.TitleCache(), YouTubeCheckpoint.empty, options())
        )
        assert.strictEqual(error._tag, "ApiError")
        assert.strictEqual(error._tag === "ApiError" ? error.kind : "", "InvalidResponse")
        assert.include(error.message, "totalReplyCount")
      })
    )
  )
})
