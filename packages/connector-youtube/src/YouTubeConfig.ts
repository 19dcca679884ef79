/**
 * The config of a YouTube source, decoded from the user's YAML:
 *
 * ```yaml
 * sources:
 *   - type: youtube
 *     channelId: UCxxxxxxxxxxxxxxxxxxxxxx
 *     clientId: ${env:YT_CLIENT_ID}
 *     clientSecret: ${env:YT_CLIENT_SECRET}
 *     refreshToken: ${env:YT_REFRESH_TOKEN}
 *     includeHeldForReview: true
 * ```
 *
 * Read-only sources may give `apiKey` instead of the OAuth fields; moderation actions and the
 * held-for-review / likely-spam lists need OAuth as the channel owner.
 *
 * @since 0.1.0
 */
import { Backoff, ConfigDuration, ConfigField } from "@warden/connector"
import { Effect, Schema } from "effect"

const duration = ConfigDuration.withDefault
const int = (min: number, max: number, value: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max })).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(value))
  )
const bool = (value: boolean) => Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))
const url = (value: string) =>
  Schema.String.check(Schema.isPattern(/^https?:\/\/[^\s]+$/u)).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(value))
  )
/** A credential: the file should reference it (`${env:NAME}`); `config check` warns when it is inline. */
const secret = (description: string) =>
  Schema.optionalKey(
    ConfigField.secret(Schema.RedactedFromValue(Schema.String.check(Schema.isNonEmpty())), { description })
  )

/** A YouTube channel id (`UC` + 22 characters). */
export const ChannelId = Schema.String.check(Schema.isPattern(/^UC[A-Za-z0-9_-]{22}$/u)).annotate({
  description: "A YouTube channel id: UC followed by 22 letters, digits, '-' or '_'"
})

/** A YouTube video id (11 characters). */
export const VideoId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{11}$/u)).annotate({
  description: "A YouTube video id: 11 letters, digits, '-' or '_'"
})

/** Google's YouTube Data API v3 base URL. */
export const defaultApiBaseUrl = "https://www.googleapis.com/youtube/v3"

/** Google's OAuth 2.0 token endpoint. */
export const defaultTokenUrl = "https://oauth2.googleapis.com/token"

const Fields = Schema.Struct({
  /** Every comment thread related to this channel (its videos and its discussion tab). */
  channelId: Schema.optionalKey(ChannelId).annotate({
    description: "Every comment thread related to this channel (its videos and its discussion tab)."
  }),
  /** Comment threads of these videos (alone or next to `channelId`). */
  videoIds: Schema.optionalKey(Schema.Array(VideoId).check(Schema.isMinLength(1))).annotate({
    description: "Comment threads of these videos (alone or next to `channelId`)."
  }),
  /** An API key: enough for a read-only source of public comments. */
  apiKey: secret("An API key: enough for a read-only source of public comments"),
  /** OAuth client id (moderation and held comments need OAuth as the channel owner). */
  clientId: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())).annotate({
    description: "OAuth client id (moderation and held comments need OAuth as the channel owner)."
  }),
  /** OAuth client secret. */
  clientSecret: secret("OAuth client secret"),
  /** OAuth refresh token of the channel owner (scope `https://www.googleapis.com/auth/youtube.force-ssl`). */
  refreshToken: secret("OAuth refresh token of the channel owner"),
  /** Shortest time between two polls (default 1 minute); longer when the quota budget needs it. */
  pollInterval: duration("1 minute", "50 millis").annotate({
    description: "Shortest time between two polls (default 1 minute); longer when the quota budget needs it."
  }),
  /** Fetch replies beyond the ones inlined in threads (default true). */
  includeReplies: bool(true).annotate({
    description: "Fetch replies beyond the ones inlined in threads (default true)."
  }),
  /** Also analyse comments YouTube holds for review (owner OAuth; default false). */
  includeHeldForReview: bool(false).annotate({
    description: "Also analyse comments YouTube holds for review (owner OAuth; default false)."
  }),
  /** Also analyse comments YouTube classified as likely spam (owner OAuth; default false). */
  includeLikelySpam: bool(false).annotate({
    description: "Also analyse comments YouTube classified as likely spam (owner OAuth; default false)."
  }),
  /** Daily quota of the Google Cloud project, in units (default 10000). */
  dailyQuota: int(1, 100_000_000, 10_000).annotate({
    description: "Daily quota of the Google Cloud project, in units (default 10000)."
  }),
  /** Units kept for moderation actions: polling stops short of them (default 1000, i.e. 20 action calls). */
  quotaReserve: int(0, 100_000_000, 1000).annotate({
    description: "Units kept for moderation actions: polling stops short of them (default 1000, i.e. 20 action calls)."
  }),
  /** Re-read this far below the newest comment seen, to catch late-indexed comments (default 10 minutes). */
  overlap: duration("10 minutes").annotate({
    description: "Re-read this far below the newest comment seen, to catch late-indexed comments (default 10 minutes)."
  }),
  /** Without a checkpoint, start with the comments of this last period (default 1 day). */
  backfill: duration("1 day").annotate({
    description: "Without a checkpoint, start with the comments of this last period (default 1 day)."
  }),
  /** At most this many pages of 100 threads per list per poll (default 20). */
  maxPagesPerPoll: int(1, 1000, 20).annotate({
    description: "At most this many pages of 100 threads per list per poll (default 20)."
  }),
  /** How often comments Warden held are checked for a moderator's approval (default 5 minutes). */
  reversalCheckInterval: duration("5 minutes", "50 millis").annotate({
    description: "How often comments Warden held are checked for a moderator's approval (default 5 minutes)."
  }),
  /** Moderation actions arriving within this window go out as one call of up to 50 ids (default 1 second). */
  actionBatchWindow: duration("1 second").annotate({
    description: "Moderation actions arriving within this window go out as one call of up to 50 ids (default 1 second)."
  }),
  /** Timeout of one API call (default 30 seconds). */
  timeout: duration("30 seconds", "100 millis").annotate({
    description: "Timeout of one API call (default 30 seconds)."
  }),
  /** Backoff after a failed poll: `initial` doubles per failure up to `max`. */
  retry: Backoff.Settings({ initial: "10 seconds", max: "15 minutes" }),
  /** YouTube Data API base URL (a proxy, or a fake in tests). */
  apiBaseUrl: url(defaultApiBaseUrl).annotate({
    description: "YouTube Data API base URL (a proxy, or a fake in tests)."
  }),
  /** OAuth token endpoint. */
  tokenUrl: url(defaultTokenUrl)
})

/** The whole YouTube source config; checks the combinations of fields a user must get right. */
export const Config = Fields.check(
  Schema.makeFilter((c) =>
    c.channelId === undefined && c.videoIds === undefined ? "give channelId and/or videoIds" : undefined
  ),
  Schema.makeFilter((c) => {
    const oauth = [c.clientId, c.clientSecret, c.refreshToken].filter((x) => x !== undefined).length
    if (oauth > 0 && oauth < 3) return "OAuth needs all of clientId, clientSecret and refreshToken"
    if (oauth === 0 && c.apiKey === undefined)
      return "give apiKey (read-only) or clientId, clientSecret and refreshToken"
    return undefined
  }),
  Schema.makeFilter((c) =>
    (c.includeHeldForReview || c.includeLikelySpam) && c.refreshToken === undefined
      ? "includeHeldForReview and includeLikelySpam need OAuth as the channel owner (clientId, clientSecret, refreshToken)"
      : undefined
  ),
  Schema.makeFilter((c) =>
    c.quotaReserve >= c.dailyQuota ? "quotaReserve must be smaller than dailyQuota" : undefined
  )
)
/** The decoded config. */
export type Config = typeof Config.Type
/** The config as a user writes it (durations as strings, defaults optional). */
export type ConfigInput = typeof Config.Encoded

/** Whether the config authenticates with OAuth (needed for actions). */
export const hasOAuth = (config: Config): boolean => config.refreshToken !== undefined
