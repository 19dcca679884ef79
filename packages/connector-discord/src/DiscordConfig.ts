/**
 * The config of a Discord source, decoded from the user's YAML:
 *
 * ```yaml
 * sources:
 *   - type: discord
 *     token: ${env:DISCORD_BOT_TOKEN}
 *     guilds:
 *       - id: "123456789012345678"
 *         channels: { include: ["234567890123456789"], exclude: [] }
 *     modLogChannel: "345678901234567890"
 *     reportEmoji: "🚩"
 *     moderatorRoles: ["456789012345678901"]
 * ```
 *
 * @since 0.1.0
 */
import { Backoff, ConfigDuration, ConfigField } from "@warden/connector"
import { Effect, Schema } from "effect"

/** A Discord id (snowflake): 1 to 20 decimal digits. */
export const Snowflake = Schema.String.check(Schema.isPattern(/^[0-9]{1,20}$/u)).annotate({
  description: "A Discord id (snowflake), as a string of digits"
})

const defaulted = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const ids = Schema.Array(Snowflake)

/** Which channels of a guild are watched: `include` (empty: every text channel) minus `exclude`. */
export const ChannelFilter = Schema.Struct({
  include: defaulted(ids, []),
  exclude: defaulted(ids, [])
})
/** @see {@link ChannelFilter} */
export type ChannelFilter = typeof ChannelFilter.Type

/** One guild (server) and its channel filter. */
export const Guild = Schema.Struct({
  id: Snowflake,
  channels: defaulted(ChannelFilter, { include: [], exclude: [] })
})
/** @see {@link Guild} */
export type Guild = typeof Guild.Type

/** Backoff of reconnects and failed REST reads: `initial` doubles per failure up to `max`. */
export const Retry = Backoff.Settings({ initial: "1 second", max: "5 minutes" })

/** The whole Discord source config; every field but `token` and `guilds` has a default. */
export const Config = Schema.Struct({
  /**
   * The bot token. The daemon resolves `${env:NAME}` before decoding; the decoded value is Redacted and
   * never appears in logs, errors or events.
   */
  token: ConfigField.secret(Schema.RedactedFromValue(Schema.String.check(Schema.isNonEmpty())), {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown to the user
    description: "The bot token (write ${env:DISCORD_TOKEN}, not the token itself)"
  }),
  /** The REST API base, without the version (default `https://discord.com/api`); tests point it at a fake. */
  apiBaseUrl: defaulted(
    Schema.String.check(Schema.isPattern(/^https?:\/\/[^\s]+$/u)),
    "https://discord.com/api"
  ).annotate({
    description: "The REST API base, without the version (default `https://discord.com/api`); tests point it at a fake."
  }),
  /** The guilds watched, each with its channel include/exclude lists. */
  guilds: Schema.Array(Guild)
    .check(Schema.isMinLength(1))
    .annotate({ description: "The guilds watched, each with its channel include/exclude lists." }),
  /** Also watch the threads of included channels (default true). */
  threads: defaulted(Schema.Boolean, true).annotate({
    description: "Also watch the threads of included channels (default true)."
  }),
  /** Ignore messages written by bots and webhooks (default true). Warden's own posts are always ignored. */
  ignoreBots: defaulted(Schema.Boolean, true).annotate({
    description: "Ignore messages written by bots and webhooks (default true). Warden's own posts are always ignored."
  }),
  /** Ignore messages of members having any of these role ids (e.g. staff). */
  ignoreRoles: defaulted(ids, []).annotate({
    description: "Ignore messages of members having any of these role ids (e.g. staff)."
  }),
  /** Analyse message text (default true). */
  messages: defaulted(Schema.Boolean, true).annotate({ description: "Analyse message text (default true)." }),
  /** Analyse image attachments by URL (default true). */
  attachments: defaulted(Schema.Boolean, true).annotate({
    description: "Analyse image attachments by URL (default true)."
  }),
  /** Analyse the usernames of members who join (default false: needs the privileged Server Members intent). */
  memberJoins: defaulted(Schema.Boolean, false).annotate({
    description:
      "Analyse the usernames of members who join (default false: needs the privileged Server Members intent)."
  }),
  /** Channel where `modLog` actions post (required for the `modLog` action). */
  modLogChannel: Schema.optionalKey(Snowflake).annotate({
    description: "Channel where `modLog` actions post (required for the `modLog` action)."
  }),
  /** Reaction by which an ordinary member reports a message Warden kept (default 🚩). */
  reportEmoji: defaulted(Schema.String.check(Schema.isNonEmpty()), "🚩").annotate({
    description: "Reaction by which an ordinary member reports a message Warden kept (default 🚩)."
  }),
  /** Reaction by which a moderator marks an action of Warden as wrong (default ✅). */
  notHarmfulEmoji: defaulted(Schema.String.check(Schema.isNonEmpty()), "✅").annotate({
    description: "Reaction by which a moderator marks an action of Warden as wrong (default ✅)."
  }),
  /** Role ids of moderators: their `notHarmfulEmoji` reactions are reversals. */
  moderatorRoles: defaulted(ids, []).annotate({
    description: "Role ids of moderators: their `notHarmfulEmoji` reactions are reversals."
  }),
  /**
   * Messages per channel read when starting without a checkpoint (default 0: only new messages).
   * With a checkpoint, everything after it is read, whatever this says.
   */
  history: defaulted(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 })), 0),
  /** Reconnect / retry backoff. */
  retry: Retry.annotate({ description: "Reconnect / retry backoff." }),
  /** Timeout of one REST request (default 15 seconds). */
  requestTimeout: ConfigDuration.withDefault("15 seconds", "100 millis")
})
/** The decoded config. */
export type Config = typeof Config.Type
/** The config as a user writes it. */
export type ConfigInput = typeof Config.Encoded
