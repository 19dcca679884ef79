/**
 * Backfill: reading what was posted in a channel while the source was not listening, with
 * `GET /channels/{id}/messages?after=` paged to the present. Discord returns each page newest-first;
 * pages are sorted by id and deduplicated by id before they are emitted, oldest first.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { compare } from "./DiscordCheckpoint.ts"
import type { DiscordDecodeError, DiscordRestError, DiscordRestShape } from "./DiscordRest.ts"
import * as DiscordPayloads from "./DiscordPayloads.ts"

/** Discord's largest page. */
export const pageSize = 100

/** Sorts messages by id (oldest first) and drops repeated ids. */
export const sortPage = <M extends { readonly id: string }>(messages: ReadonlyArray<M>): Array<M> => {
  const seen = new Set<string>()
  const out: Array<M> = []
  for (const m of [...messages].sort((a, b) => compare(a.id, b.id))) {
    if (seen.has(m.id)) continue
    seen.add(m.id)
    out.push(m)
  }
  return out
}

/**
 * One page of messages after `after` (exclusive), oldest first; `done` when it is the last page.
 * A span per page (`Backfill.pageAfter`, with the channel id).
 */
export const pageAfter: (
  rest: DiscordRestShape,
  channel: string,
  after: string
) => Effect.Effect<
  { readonly messages: ReadonlyArray<DiscordPayloads.Message>; readonly done: boolean },
  DiscordRestError | DiscordDecodeError
> = Effect.fn("Backfill.pageAfter")(function* (rest: DiscordRestShape, channel: string, after: string) {
  yield* Effect.annotateCurrentSpan("discord.channel", channel)
  const page = yield* rest.read(`GET /channels/${channel}/messages`, DiscordPayloads.Messages, (api, signal) =>
    api.channels.getMessages(channel, { after, limit: pageSize }, { signal })
  )
  const messages = sortPage(page).filter((m) => compare(m.id, after) > 0)
  return { messages, done: page.length < pageSize }
})

/**
 * The newest `count` messages of a channel (at least one request, even for 0, to learn the newest
 * id), oldest first. `newest` is the newest message id, if the channel has any. A span per channel
 * (`Backfill.latest`, with the channel id and the count asked), however many pages it reads.
 */
export const latest: (
  rest: DiscordRestShape,
  channel: string,
  count: number
) => Effect.Effect<
  { readonly messages: ReadonlyArray<DiscordPayloads.Message>; readonly newest: string | undefined },
  DiscordRestError | DiscordDecodeError
> = Effect.fn("Backfill.latest")(function* (rest: DiscordRestShape, channel: string, count: number) {
  yield* Effect.annotateCurrentSpan({ "discord.channel": channel, "discord.count": count })
  const collected: Array<DiscordPayloads.Message> = []
  let before: string | undefined
  let newest: string | undefined
  while (true) {
    const limit = Math.max(1, Math.min(pageSize, count - collected.length))
    const page = sortPage(
      yield* rest.read(`GET /channels/${channel}/messages`, DiscordPayloads.Messages, (api, signal) =>
        api.channels.getMessages(channel, before === undefined ? { limit } : { before, limit }, { signal })
      )
    )
    if (newest === undefined) newest = page.at(-1)?.id
    collected.unshift(...page)
    if (page.length < limit || collected.length >= count || page.length === 0) break
    before = page[0]!.id
  }
  return { messages: sortPage(collected).slice(Math.max(0, collected.length - count)), newest }
})
