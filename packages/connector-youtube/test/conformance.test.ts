import type { Conformance } from "@warden/connector/testing"
import { describeConformance } from "@warden/connector/testing"
import { Effect, type Scope } from "effect"
import { CommentPoller, connector, Moderation } from "../src/index.ts"
import * as FakeYouTube from "./fixtures/FakeYouTube.ts"
import { fast } from "./fixtures/run.ts"

/**
 * The action kind of each moderation status (`holdForReview` for `heldForReview`, ...); `published` is
 * set by `publish` and `restore` alike: the first declared wins (the kit acts with the first kind).
 */
const kindOf = new Map<string, string>()
for (const [kind, status] of Object.entries(Moderation.statusOf)) if (!kindOf.has(status)) kindOf.set(status, kind)

/**
 * A real fake Data API: `publish` adds comments, `edit` changes one's text (a new `updatedAt`),
 * `actionsDone` lists the `comments.setModerationStatus` calls per comment; `stop` makes it answer 503
 * backendError. No `remove`: the Data API lists no deleted comments, so the source cannot emit deletes.
 */
const setup: Effect.Effect<Conformance.Harness, never, Scope.Scope> = Effect.gen(function* () {
  const fake = yield* FakeYouTube.make()
  const added: Array<string> = []
  return {
    config: { channelId: FakeYouTube.channelId, ...fake.oauthConfig, ...fast },
    upstream: {
      publish: (count) =>
        Effect.sync(() => {
          for (let i = 0; i < count; i++) added.push(fake.add({}).id)
        }),
      stop: Effect.sync(() => {
        fake.state.up = false
      }),
      start: Effect.sync(() => {
        fake.state.up = true
      }),
      edit: (index) => Effect.sync(() => fake.edit(added[index - 1]!, `edited comment ${index}`)),
      actionsDone: Effect.sync(() =>
        fake.calls("/youtube/v3/comments/setModerationStatus").flatMap((call) =>
          (call.params.id ?? "").split(",").map((id) => ({
            kind: kindOf.get(call.params.moderationStatus ?? "") ?? `status ${call.params.moderationStatus}`,
            reference: CommentPoller.reference(id)
          }))
        )
      )
    }
  }
})

describeConformance("youtube", { connector, setup, timeout: "5 seconds" })
