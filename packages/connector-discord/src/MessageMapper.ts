/**
 * Pure mapping of Discord messages and members to Warden item events: which messages are ignored
 * (bots, webhooks, ignored roles, Warden itself), the text / image / username content, the author, the
 * thread context (parent and top-level references, the replied-to message) and the `post` of threads.
 *
 * @since 0.1.0
 */
import type { SourceEvent } from "@warden/connector"
import type * as DiscordConfig from "./DiscordConfig.ts"
import type * as DiscordPayloads from "./DiscordPayloads.ts"
import * as DiscordReference from "./DiscordReference.ts"

/** What is known of a channel or thread. */
export interface ChannelInfo {
  readonly id: string
  readonly guildId: string
  readonly type: number
  readonly name?: string | undefined
  /** The channel a thread belongs to. */
  readonly parentId?: string | undefined
  /** The type of that channel (forum threads start with a message of the thread's own id). */
  readonly parentType?: number | undefined
  readonly isThread: boolean
}

/** An item event before its checkpoint is attached. */
export type Pending =
  | Omit<SourceEvent.Upsert, "checkpoint">
  | Omit<SourceEvent.Delete, "checkpoint">
  | Omit<SourceEvent.Reversal, "checkpoint">
  | Omit<SourceEvent.Report, "checkpoint">

/** Whether a message is ignored: Warden's own, bots and webhooks (with `ignoreBots`), ignored roles. */
export const isIgnored = (
  config: DiscordConfig.Config,
  author: DiscordPayloads.User | undefined,
  webhookId: string | undefined,
  member: DiscordPayloads.Member | undefined,
  botUserId: string | undefined
): boolean => {
  if (author !== undefined && author.id === botUserId) return true
  if (config.ignoreBots && (author?.bot === true || webhookId !== undefined)) return true
  const roles = member?.roles ?? []
  return roles.some((r) => config.ignoreRoles.includes(r))
}

const isImage = (a: DiscordPayloads.Attachment): boolean =>
  a.content_type !== undefined
    ? a.content_type.startsWith("image/")
    : /\.(png|jpe?g|gif|webp|bmp|avif)$/iu.test(a.filename ?? a.url.split("?")[0] ?? "")

/** The reference of the message a thread starts with (forum posts: in the thread; others: in the parent). */
export const topLevelOf = (channel: ChannelInfo): string | undefined =>
  channel.isThread && channel.parentId !== undefined
    ? channel.parentType !== undefined && channel.parentType >= 15
      ? DiscordReference.message(channel.guildId, channel.id, channel.id)
      : DiscordReference.message(channel.guildId, channel.parentId, channel.id)
    : undefined

/** Author, links and thread context shared by a message's text and attachment items. */
export const context = (
  message: {
    readonly id: string
    readonly author?: DiscordPayloads.User | undefined
    readonly timestamp?: string | undefined
    readonly type?: number | undefined
    readonly message_reference?: typeof DiscordPayloads.MessageReference.Type | undefined
  },
  channel: ChannelInfo
): Omit<SourceEvent.Upsert, "kind" | "reference" | "content" | "checkpoint"> => {
  const guild = channel.guildId
  const top = topLevelOf(channel)
  const isStarter = top === DiscordReference.message(guild, channel.id, message.id)
  const replyTo =
    message.message_reference?.message_id !== undefined && (message.type === undefined || message.type === 19)
      ? DiscordReference.message(
          guild,
          message.message_reference.channel_id ?? channel.id,
          message.message_reference.message_id
        )
      : undefined
  const parent = replyTo ?? (isStarter ? undefined : top)
  const thread = {
    ...(top === undefined || isStarter ? {} : { topLevelReference: top }),
    ...(parent === undefined ? {} : { parentReference: parent })
  }
  return {
    ...(message.timestamp === undefined ? {} : { publishedAt: message.timestamp }),
    permalink: DiscordReference.messageUrl(guild, channel.id, message.id),
    platformIds: { guild, channel: channel.id, message: message.id },
    ...(message.author === undefined
      ? {}
      : {
          author: {
            identifier: message.author.id,
            username: message.author.username,
            ...(message.author.avatar
              ? {
                  profilePictureUrl: `https://cdn.discordapp.com/avatars/${message.author.id}/${message.author.avatar}.png`
                }
              : {})
          }
        }),
    ...(channel.isThread && channel.name
      ? {
          post: {
            title: channel.name,
            ...(top === undefined ? {} : { reference: top }),
            permalink: `https://discord.com/channels/${guild}/${channel.id}`
          }
        }
      : {}),
    ...(Object.keys(thread).length === 0 ? {} : { thread })
  }
}

/** The upserts of a new message: its text (with `messages`) and image attachments (with `attachments`). */
export const messageItems = (
  config: DiscordConfig.Config,
  message: DiscordPayloads.Message,
  channel: ChannelInfo
): Array<Omit<SourceEvent.Upsert, "checkpoint">> => {
  const guild = channel.guildId
  const shared = context(message, channel)
  const reference = DiscordReference.message(guild, channel.id, message.id)
  const out: Array<Omit<SourceEvent.Upsert, "checkpoint">> = []
  if (config.messages && message.content.trim() !== "") {
    out.push({ kind: "upsert", reference, content: { type: "text", text: message.content }, ...shared })
  }
  if (config.attachments) {
    for (const a of message.attachments.filter(isImage)) {
      out.push({
        kind: "upsert",
        reference: DiscordReference.attachment(guild, channel.id, message.id, a.id),
        content: { type: "image", url: a.url },
        ...shared,
        platformIds: { ...shared.platformIds, attachment: a.id },
        thread: { ...shared.thread, parentReference: reference }
      })
    }
  }
  return out
}

/** The username item of a member who joined: the display name (global name), else the username. */
export const memberItem = (member: DiscordPayloads.GuildMemberAdd): Omit<SourceEvent.Upsert, "checkpoint"> => ({
  kind: "upsert",
  reference: DiscordReference.member(member.guild_id, member.user.id),
  content: { type: "username", username: member.user.global_name ?? member.user.username },
  ...(member.joined_at === undefined ? {} : { publishedAt: member.joined_at }),
  author: { identifier: member.user.id, username: member.user.username },
  platformIds: { guild: member.guild_id }
})

/** Whether a reaction's emoji is the configured one (`🚩`, a custom `name`, `name:id`, `<:name:id>` or the id). */
export const emojiMatches = (
  configured: string,
  emoji: { readonly id?: string | null | undefined; readonly name?: string | null | undefined }
): boolean => {
  const c = configured.trim().replace(/^<a?:/u, "").replace(/>$/u, "")
  if (emoji.name && c === emoji.name) return true
  if (emoji.id && (c === emoji.id || c === `${emoji.name}:${emoji.id}`)) return true
  return false
}
