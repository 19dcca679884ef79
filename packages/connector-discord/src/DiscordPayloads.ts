/**
 * Schemas of the gateway payloads and REST answers the connector reads. Only the fields used are
 * declared (others pass through unchecked); a payload missing one of them is reported as an `error`
 * event naming the field, never a crash.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"

const Id = Schema.String
const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))

/** A user (author of a message, new member). */
export const User = Schema.Struct({
  id: Id,
  username: Schema.String,
  global_name: nullable(Schema.String),
  bot: opt(Schema.Boolean),
  avatar: nullable(Schema.String)
})
/** @see {@link User} */
export type User = typeof User.Type

/** A guild member (roles, nickname); on messages and reactions the `user` is absent. */
export const Member = Schema.Struct({
  roles: Schema.Array(Id),
  nick: nullable(Schema.String),
  user: opt(User)
})
/** @see {@link Member} */
export type Member = typeof Member.Type

/** An attachment of a message. */
export const Attachment = Schema.Struct({
  id: Id,
  url: Schema.String,
  filename: opt(Schema.String),
  content_type: opt(Schema.String)
})
/** @see {@link Attachment} */
export type Attachment = typeof Attachment.Type

/** The message a reply points to. */
export const MessageReference = Schema.Struct({
  message_id: opt(Id),
  channel_id: opt(Id),
  guild_id: opt(Id)
})

/** A message, from `MESSAGE_CREATE` or `GET /channels/{id}/messages`. */
export const Message = Schema.Struct({
  id: Id,
  channel_id: Id,
  guild_id: opt(Id),
  author: User,
  member: opt(Member),
  content: Schema.String,
  timestamp: Schema.String,
  edited_timestamp: nullable(Schema.String),
  webhook_id: opt(Id),
  type: opt(Schema.Number),
  attachments: Schema.Array(Attachment),
  message_reference: opt(MessageReference)
})
/** @see {@link Message} */
export type Message = typeof Message.Type

/** `MESSAGE_UPDATE`: a partial message; `content` is present only when it changed or was resent. */
export const MessageUpdate = Schema.Struct({
  id: Id,
  channel_id: Id,
  guild_id: opt(Id),
  author: opt(User),
  member: opt(Member),
  content: opt(Schema.String),
  timestamp: opt(Schema.String),
  edited_timestamp: nullable(Schema.String),
  webhook_id: opt(Id),
  attachments: opt(Schema.Array(Attachment)),
  message_reference: opt(MessageReference)
})
/** @see {@link MessageUpdate} */
export type MessageUpdate = typeof MessageUpdate.Type

/** `MESSAGE_DELETE`. */
export const MessageDelete = Schema.Struct({ id: Id, channel_id: Id, guild_id: opt(Id) })

/** `MESSAGE_DELETE_BULK`. */
export const MessageDeleteBulk = Schema.Struct({ ids: Schema.Array(Id), channel_id: Id, guild_id: opt(Id) })

/** `GUILD_MEMBER_ADD`: a member with its `guild_id`. */
export const GuildMemberAdd = Schema.Struct({
  guild_id: Id,
  user: User,
  nick: nullable(Schema.String),
  joined_at: opt(Schema.String)
})
/** @see {@link GuildMemberAdd} */
export type GuildMemberAdd = typeof GuildMemberAdd.Type

/** `MESSAGE_REACTION_ADD`. */
export const ReactionAdd = Schema.Struct({
  user_id: Id,
  channel_id: Id,
  message_id: Id,
  guild_id: opt(Id),
  member: opt(Member),
  emoji: Schema.Struct({ id: nullable(Id), name: nullable(Schema.String) })
})
/** @see {@link ReactionAdd} */
export type ReactionAdd = typeof ReactionAdd.Type

/** A channel or thread (`GET /channels/{id}`, `GET /guilds/{id}/channels`, `THREAD_CREATE`). */
export const Channel = Schema.Struct({
  id: Id,
  type: Schema.Number,
  guild_id: opt(Id),
  name: nullable(Schema.String),
  parent_id: nullable(Id)
})
/** @see {@link Channel} */
export type Channel = typeof Channel.Type

/** `GET /guilds/{id}/threads/active`. */
export const ActiveThreads = Schema.Struct({ threads: Schema.Array(Channel) })

/** `READY`: the bot user and the session. */
export const Ready = Schema.Struct({
  session_id: Schema.String,
  resume_gateway_url: Schema.String,
  user: User
})

/** The answer to a posted message: its id. */
export const Posted = Schema.Struct({ id: Id })

/** A list of messages (`GET /channels/{id}/messages`). */
export const Messages = Schema.Array(Message)

/** A list of channels (`GET /guilds/{id}/channels`). */
export const Channels = Schema.Array(Channel)

/** Channel types whose messages are read: text and announcement channels (threads are added separately). */
export const textChannelTypes: ReadonlySet<number> = new Set([0, 5])

/** Forum and media channels: no messages of their own, each post is a thread. */
export const forumTypes: ReadonlySet<number> = new Set([15, 16])

/** Thread channel types (announcement, public, private thread). */
export const threadTypes: ReadonlySet<number> = new Set([10, 11, 12])

/**
 * Decodes a payload with every problem reported: the decoded value, or a message naming the offending
 * fields (e.g. `["author"]["id"]: Missing key`).
 */
export const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  input: unknown
): { readonly ok: true; readonly value: S["Type"] } | { readonly ok: false; readonly message: string } => {
  const result = Schema.decodeUnknownResult(schema, { errors: "all" })(input)
  return Result.isSuccess(result) ? { ok: true, value: result.success } : { ok: false, message: result.failure.message }
}
