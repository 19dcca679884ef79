/**
 * The API key and the OAuth tokens never reach a trace: effect's HTTP client records each request's
 * URL and headers on its span, so a key sent as `?key=` or in a header it does not redact would be
 * exported with every poll once the daemon exports traces. A poll is named spans (`CommentPoller.poll`,
 * `CommentPoller.listThreads`, `YouTubeClient.list` per request, `OAuth.refresh`), with neither a
 * secret nor a comment's text or author in them.
 */
import { assert, describe, it } from "@effect/vitest"
import { recordingTracer } from "@warden/vitest-config/RecordingTracer"
import { Effect } from "effect"
import { CommentPoller, YouTubeCheckpoint } from "../src/index.ts"
import { apiClient } from "./fixtures/client.ts"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"

const capture = () => {
  const { spans, tracer } = recordingTracer()
  const text = () =>
    spans
      .map(
        (s) =>
          `${s.name} ${JSON.stringify([...s.attributes.entries()], (_k, v) => (typeof v === "bigint" ? String(v) : v))}`
      )
      .join("\n")
  return { spans, tracer, text }
}

describe("secrets in traces", () => {
  for (const auth of ["key", "oauth"] as const) {
    it.live(`a poll with ${auth === "key" ? "an API key" : "OAuth"} leaves neither key nor token in any span`, () =>
      Effect.scoped(
        Effect.gen(function* () {
          const fake = yield* FakeYouTube.make()
          fake.add({ text: "span-content-marker hello", author: "span-author-marker" })
          const { spans, tracer, text } = capture()
          const { client } = yield* apiClient(fake, auth)
          const polled = yield* CommentPoller.poll(client, new CommentPoller.TitleCache(), YouTubeCheckpoint.empty, {
            scopes: [
              {
                key: `channel:${FakeYouTube.channelId}`,
                params: { allThreadsRelatedToChannelId: FakeYouTube.channelId }
              }
            ],
            includeReplies: true,
            overlapMillis: 2000,
            backfillMillis: 86_400_000,
            maxPages: 20,
            now: Date.now()
          }).pipe(Effect.withTracer(tracer))
          assert.lengthOf(polled.events, 1)
          // the poll and each request are named spans (one per poll, per scope, per request: not per comment)
          const named = (name: string) => spans.filter((s) => s.name === name)
          const poll = named("CommentPoller.poll")
          assert.lengthOf(poll, 1, text())
          assert.strictEqual(poll[0]!.attributes.get("youtube.comments"), 1)
          assert.lengthOf(named("CommentPoller.listThreads"), 1, text())
          const lists = named("YouTubeClient.list")
          assert.isAtLeast(lists.length, 2, text())
          assert.deepStrictEqual(
            new Set(lists.map((s) => s.attributes.get("youtube.method"))),
            new Set(["commentThreads.list", "videos.list"])
          )
          assert.lengthOf(named("OAuth.refresh"), auth === "oauth" ? 1 : 0, text())
          // the HTTP client's spans are there (so the check below looks at real request spans)
          assert.isTrue(
            spans.some((s) => [...s.attributes.keys()].some((k) => k.startsWith("http.request"))),
            text()
          )
          const all = text()
          assert.notInclude(all, fake.state.apiKey)
          for (const token of fake.state.validTokens) assert.notInclude(all, token)
          assert.notInclude(all, fake.state.refreshToken)
          assert.notInclude(all, fake.state.clientSecret)
          assert.notInclude(all, "span-content-marker")
          assert.notInclude(all, "span-author-marker")
        })
      )
    )
  }
})
