/**
 * What issue 36's queue tests share: the team (alice and bob moderate, vic only reads, each with
 * their own token), a rule sending everything to review, and a YouTube source on the fake YouTube
 * Data API of the connector's tests, fast-polling.
 */
import { connector as youtube } from "@warden/connector-youtube"
import { Redacted, Schema } from "effect"
import * as FakeYouTube from "../../../../packages/connector-youtube/test/fixtures/FakeYouTube.ts"
import { fast } from "../../../../packages/connector-youtube/test/fixtures/run.ts"
import type { ConfiguredModerator } from "../../src/admin/Moderators.ts"
import type { Rule } from "../../src/domain/Rule.ts"
import type { SourceSpec } from "../../src/engine/Pipeline.ts"
import { sourceSettings } from "./TestPlatform.ts"

export const ALICE = "alice-token-0123456789"
export const BOB = "bob-token-0123456789ab"
export const VIC = "vic-token-0123456789ab"

/** alice and bob (moderators) and vic (a viewer). */
export const TEAM: ReadonlyArray<ConfiguredModerator> = [
  { name: "alice", role: "moderator", token: Redacted.make(ALICE) },
  { name: "bob", role: "moderator", token: Redacted.make(BOB) },
  { name: "vic", role: "viewer", token: Redacted.make(VIC) }
]

/** Every item goes to review: what a moderator decides is then tested against every kind of verdict. */
export const reviewAll: Rule = { name: "review-all", when: {}, actions: [], review: true }

/** A source `id` reading the fake's channel with the YouTube connector, every item sent to review. */
export const youtubeSource = (fake: FakeYouTube.Fake, id = "yt"): SourceSpec => ({
  settings: sourceSettings(id, "youtube", {
    platform: "youtube",
    rules: [reviewAll],
    connectorActions: youtube.capabilities.actions
  }),
  connector: youtube,
  config: Schema.decodeUnknownSync(youtube.configSchema)({
    channelId: FakeYouTube.channelId,
    ...fake.oauthConfig,
    ...fast
  })
})
