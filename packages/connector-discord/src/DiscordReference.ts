/**
 * References of Discord items: `discord:<guild>/<channel>/<message>` for a message,
 * `discord:<guild>/<channel>/<message>/attachment/<id>` for an attachment, `discord:<guild>/member/<user>`
 * for a member's username. Threads are channels: a message in a thread has the thread's id as channel.
 *
 * @since 0.1.0
 */

/** A parsed reference. */
export type Reference =
  | { readonly _tag: "Message"; readonly guild: string; readonly channel: string; readonly message: string }
  | {
      readonly _tag: "Attachment"
      readonly guild: string
      readonly channel: string
      readonly message: string
      readonly attachment: string
    }
  | { readonly _tag: "Member"; readonly guild: string; readonly user: string }

/** The reference of a message. */
export const message = (guild: string, channel: string, id: string): string => `discord:${guild}/${channel}/${id}`

/** The reference of an attachment of a message. */
export const attachment = (guild: string, channel: string, messageId: string, id: string): string =>
  `discord:${guild}/${channel}/${messageId}/attachment/${id}`

/** The reference of a member (username item). */
export const member = (guild: string, user: string): string => `discord:${guild}/member/${user}`

/** The link to a message in the Discord client. */
export const messageUrl = (guild: string, channel: string, id: string): string =>
  `https://discord.com/channels/${guild}/${channel}/${id}`

const id = "([0-9]{1,20})"
const messageRe = new RegExp(`^discord:${id}/${id}/${id}$`, "u")
const attachmentRe = new RegExp(`^discord:${id}/${id}/${id}/attachment/${id}$`, "u")
const memberRe = new RegExp(`^discord:${id}/member/${id}$`, "u")

/** Parses a reference; `undefined` when it is not a Discord reference. */
export const parse = (reference: string): Reference | undefined => {
  let m = messageRe.exec(reference)
  if (m) return { _tag: "Message", guild: m[1]!, channel: m[2]!, message: m[3]! }
  m = attachmentRe.exec(reference)
  if (m) return { _tag: "Attachment", guild: m[1]!, channel: m[2]!, message: m[3]!, attachment: m[4]! }
  m = memberRe.exec(reference)
  if (m) return { _tag: "Member", guild: m[1]!, user: m[2]! }
  return undefined
}
