/**
 * The Discord connector: messages, edits and deletes of the configured channels and threads, image
 * attachments and member joins over the gateway, with backfill so nothing posted while the source was
 * down (or while the gateway could not resume) slips through, moderation actions and community feedback
 * (moderator reversals, member reports) as events.
 *
 * Ordering and delivery: the gateway connects first and queues what it dispatches; on READY (a new
 * session) and on the first RESUMED of a run, every watched channel and active thread is backfilled with
 * `GET /channels/{id}/messages?after=<high-water>` before the queued live events are handled. A
 * `MESSAGE_CREATE` at or below a channel's high-water is dropped, so backfill and live events overlap
 * without duplicates. Events of one dispatch but the last carry the checkpoint from before it.
 *
 * Errors: transient trouble (REST 5xx, network, gateway disconnects) becomes `error` events and is
 * retried; a malformed payload is an `error` event naming the field. The stream fails only when it
 * cannot go on: a rejected token (401 / close 4004), refused intents (4014) or an invalid checkpoint.
 *
 * @since 0.1.0
 */
import type { SessionInfo } from "@discordjs/ws"
import { Backoff, Connector, ConnectorError, Preview, type Source, type SourceEvent } from "@warden/connector"
import { Context, Duration, Effect, Layer, Option, Result, type Scope, Stream } from "effect"
import type * as EffectConfig from "effect/Config"
import * as Backfill from "./Backfill.ts"
import * as DiscordActions from "./DiscordActions.ts"
import * as DiscordCheckpoint from "./DiscordCheckpoint.ts"
import * as DiscordConfig from "./DiscordConfig.ts"
import * as DiscordGateway from "./DiscordGateway.ts"
import * as DiscordPayloads from "./DiscordPayloads.ts"
import * as DiscordReference from "./DiscordReference.ts"
import * as DiscordRest from "./DiscordRest.ts"
import * as MessageMapper from "./MessageMapper.ts"

type Event = SourceEvent.SourceEvent
type RestError = DiscordRest.DiscordRestError | DiscordRest.DiscordDecodeError

/** The permission integer of the invite URL: View Channel, Send Messages, Manage Messages, Read Message History, Add Reactions, Kick Members, Moderate Members. */
export const permissions = (1n << 1n) | (1n << 6n) | (1n << 10n) | (1n << 11n) | (1n << 13n) | (1n << 16n) | (1n << 40n)

/** The gateway intents a config needs. */
export const intentsOf = (config: DiscordConfig.Config): number =>
  DiscordGateway.Intents.Guilds |
  DiscordGateway.Intents.GuildMessages |
  DiscordGateway.Intents.GuildMessageReactions |
  DiscordGateway.Intents.MessageContent |
  (config.memberJoins ? DiscordGateway.Intents.GuildMembers : 0)

const connectorError = (reason: string, message: string, retryable = false) =>
  new ConnectorError.ConnectorError({ source: "discord", reason, retryable, message })

/** The clear, non-retryable error of a fatal gateway close code, naming the fix. */
export const fatalCloseError = (code: number, config: DiscordConfig.Config): ConnectorError.ConnectorError => {
  switch (code) {
    case 4004:
      return connectorError(
        "Unauthorized",
        "Discord rejected the bot token (gateway close 4004): copy a fresh token from the Developer Portal (your application -> Bot -> Reset Token) into the source's `token`"
      )
    case 4014:
      return connectorError(
        "InvalidConfig",
        `Discord refused privileged intents (gateway close 4014): enable ${
          config.memberJoins ? "Message Content Intent and Server Members Intent" : "Message Content Intent"
        } in the Developer Portal (your application -> Bot -> Privileged Gateway Intents)`
      )
    case 4013:
      return connectorError("InvalidConfig", "Discord refused the intents as invalid (gateway close 4013)")
    default:
      return connectorError(
        "InvalidConfig",
        `Discord closed the gateway with code ${code}, which reconnecting cannot fix`
      )
  }
}

const bounded = <K, V>(map: Map<K, V>, key: K, value: V, limit = 5000) => {
  map.delete(key)
  map.set(key, value)
  if (map.size > limit) map.delete(map.keys().next().value as K)
}

/** The connector's source over a decoded config; the REST client lives in the scope, the gateway in the stream. */
export const make = (
  config: DiscordConfig.Config
): Effect.Effect<Source.Source, ConnectorError.ConnectorError, Scope.Scope> =>
  Effect.gen(function* () {
    const rest = yield* DiscordRest.make({
      token: config.token,
      apiBaseUrl: config.apiBaseUrl,
      requestTimeout: config.requestTimeout
    })
    const shared: DiscordActions.Shared = { acted: {}, modLog: {}, authors: new Map() }
    const guilds = new Map(config.guilds.map((g) => [g.id, g]))

    const events = (from: Option.Option<unknown>): Stream.Stream<Event, ConnectorError.ConnectorError> =>
      Stream.unwrap(
        Effect.gen(function* () {
          const initial = Option.isSome(from)
            ? yield* DiscordCheckpoint.decode(from.value).pipe(
                Effect.mapError((e) => connectorError("InvalidCheckpoint", `not a Discord checkpoint: ${e.message}`))
              )
            : DiscordCheckpoint.empty
          const hasCheckpoint = Option.isSome(from)
          const channels: Record<string, string> = { ...initial.channels }
          let since = initial.since
          const reported: Array<string> = [...initial.reported]
          Object.assign(shared.acted, initial.acted)
          Object.assign(shared.modLog, initial.modLog)
          let lastSeq = initial.session?.seq ?? 0
          let currentSeq = lastSeq
          let botUserId: string | undefined
          let backfilled = false
          let failures = 0
          const infos = new Map<string, MessageMapper.ChannelInfo | null>()
          const contents = new Map<string, { text: string; attachments: ReadonlyArray<string> }>()

          const resumeFrom: SessionInfo | null =
            initial.session === undefined
              ? null
              : {
                  sessionId: initial.session.id,
                  sequence: initial.session.seq,
                  resumeURL: initial.session.resumeUrl,
                  shardId: 0,
                  shardCount: 1
                }
          const gateway = yield* DiscordGateway.make({
            rest: rest.rest,
            token: config.token,
            intents: intentsOf(config),
            session: resumeFrom,
            retry: config.retry
          })

          const snapshot = (): DiscordCheckpoint.State => {
            const session = gateway.session()
            return {
              v: 1,
              channels: { ...channels },
              since,
              ...(session === null
                ? {}
                : { session: { id: session.sessionId, seq: lastSeq, resumeUrl: session.resumeURL } }),
              acted: DiscordCheckpoint.bound({ ...shared.acted }),
              modLog: DiscordCheckpoint.bound({ ...shared.modLog }),
              reported: reported.slice(-DiscordCheckpoint.memoryLimit)
            }
          }

          /** Runs `change`, then attaches checkpoints: all events but the last get the one from before. */
          const withCheckpoints = (change: () => ReadonlyArray<MessageMapper.Pending>): Array<Event> => {
            const before = snapshot()
            const pending = change()
            lastSeq = Math.max(lastSeq, currentSeq)
            if (pending.length === 0) return []
            const after = snapshot()
            return pending.map((e, i) => ({ ...e, checkpoint: i === pending.length - 1 ? after : before }) as Event)
          }

          const errorEvent = (reason: string, message: string, retryInMillis: number, count = true): Event => ({
            kind: "error",
            source: "discord",
            reason,
            message,
            attempt: count ? ++failures : Math.max(1, failures),
            retryInMillis
          })
          // `failures` counts the failures before this one: the wait of attempt failures + 1.
          const backoff = () => Backoff.delayMillis(config.retry, failures + 1)

          const isWatched = (info: MessageMapper.ChannelInfo | null | undefined): info is MessageMapper.ChannelInfo => {
            if (!info) return false
            const guild = guilds.get(info.guildId)
            if (guild === undefined) return false
            const { include, exclude } = guild.channels
            if (exclude.includes(info.id)) return false
            if (info.isThread) {
              if (!config.threads || info.parentId === undefined || exclude.includes(info.parentId)) return false
              return include.length === 0 || include.includes(info.parentId)
            }
            return include.length === 0 || include.includes(info.id)
          }

          const register = (channel: DiscordPayloads.Channel, guildId: string): MessageMapper.ChannelInfo => {
            const parent = channel.parent_id ? infos.get(channel.parent_id) : undefined
            const info: MessageMapper.ChannelInfo = {
              id: channel.id,
              guildId: channel.guild_id ?? guildId,
              type: channel.type,
              name: channel.name ?? undefined,
              parentId: channel.parent_id ?? undefined,
              parentType: parent?.type,
              isThread: DiscordPayloads.threadTypes.has(channel.type)
            }
            infos.set(channel.id, info)
            return info
          }

          /** A REST call retried with backoff; each failure is an `error` event. Permanent failures (403, 404) give up. */
          const retrying = <A>(
            what: string,
            effect: Effect.Effect<A, RestError>,
            onSuccess: (a: A) => Stream.Stream<Event, ConnectorError.ConnectorError>,
            onPermanent: (error: RestError) => string
          ): Stream.Stream<Event, ConnectorError.ConnectorError> =>
            Stream.unwrap(
              Effect.gen(function* () {
                const result = yield* Effect.result(effect)
                if (Result.isSuccess(result)) {
                  failures = 0
                  return onSuccess(result.success)
                }
                const error = result.failure
                if (error._tag === "DiscordRestError" && error.status === 401) {
                  return Stream.fail(
                    connectorError(
                      "Unauthorized",
                      `Discord rejected the bot token (401 on ${what}): set a valid bot token`
                    )
                  )
                }
                if (error._tag === "DiscordRestError" && !error.retryable) {
                  return Stream.make(errorEvent("PermissionDenied", onPermanent(error), 0))
                }
                const wait = backoff()
                const event = errorEvent(
                  error._tag === "DiscordDecodeError" ? "InvalidResponse" : "Unavailable",
                  error.message,
                  wait
                )
                return Stream.concat(
                  Stream.make(event),
                  Stream.unwrap(
                    Effect.as(Effect.sleep(Duration.millis(wait)), retrying(what, effect, onSuccess, onPermanent))
                  )
                )
              })
            )

          const rememberContent = (message: DiscordPayloads.Message, info: MessageMapper.ChannelInfo) => {
            const reference = DiscordReference.message(info.guildId, info.id, message.id)
            bounded(contents, message.id, { text: message.content, attachments: message.attachments.map((a) => a.id) })
            bounded(shared.authors, reference, message.author.id)
          }

          /** A new message (live or backfilled): dropped at or below the channel's high-water. */
          const onMessage = (message: DiscordPayloads.Message, info: MessageMapper.ChannelInfo): Array<Event> => {
            const hw = channels[info.id]
            if (hw !== undefined && DiscordCheckpoint.compare(message.id, hw) <= 0) return []
            return withCheckpoints(() => {
              channels[info.id] = message.id
              since = DiscordCheckpoint.max(since, message.id)
              rememberContent(message, info)
              if (MessageMapper.isIgnored(config, message.author, message.webhook_id, message.member, botUserId))
                return []
              return MessageMapper.messageItems(config, message, info)
            })
          }

          const pagesAfter = (
            info: MessageMapper.ChannelInfo,
            after: string
          ): Stream.Stream<Event, ConnectorError.ConnectorError> =>
            retrying(
              `GET /channels/${info.id}/messages`,
              Backfill.pageAfter(rest, info.id, after),
              ({ messages, done }) => {
                const emitted = Stream.fromIterable(messages).pipe(
                  Stream.flatMap((m) => Stream.fromIterable(onMessage(m, info)))
                )
                const last = messages.at(-1)?.id
                return done || last === undefined
                  ? emitted
                  : Stream.concat(
                      emitted,
                      Stream.suspend(() => pagesAfter(info, last))
                    )
              },
              (e) => cannotRead(info, e)
            )

          const cannotRead = (info: MessageMapper.ChannelInfo, e: RestError) =>
            `cannot read ${info.isThread ? "thread" : "channel"} ${info.name ? `#${info.name} ` : ""}(${info.id}): ${e.message}. The bot needs View Channel and Read Message History there: invite it with permissions=${permissions} or grant them on the channel`

          const backfillChannel = (
            info: MessageMapper.ChannelInfo
          ): Stream.Stream<Event, ConnectorError.ConnectorError> => {
            const hw = channels[info.id]
            if (hw !== undefined) return pagesAfter(info, hw)
            // Created (or first watched) while no source ran: everything after the newest id the checkpoint saw.
            if (hasCheckpoint && since !== "0") return pagesAfter(info, since)
            return retrying(
              `GET /channels/${info.id}/messages`,
              Backfill.latest(rest, info.id, config.history),
              ({ messages, newest }) =>
                Stream.suspend(() => {
                  // No high-water is set beyond what is emitted: a message posted after READY arrives live.
                  // `since` moves to the newest id: anything posted later has a higher id, so a restart
                  // reads this channel after it even if it stays quiet meanwhile.
                  since = DiscordCheckpoint.max(since, newest ?? "0")
                  return Stream.fromIterable(messages.flatMap((m) => onMessage(m, info)))
                }),
              (e) => cannotRead(info, e)
            )
          }

          const discoverGuild = (guildId: string): Stream.Stream<Event, ConnectorError.ConnectorError> =>
            retrying(
              `GET /guilds/${guildId}/channels`,
              Effect.all([
                rest.read(`GET /guilds/${guildId}/channels`, DiscordPayloads.Channels, (api, signal) =>
                  api.guilds.getChannels(guildId, { signal })
                ),
                config.threads
                  ? rest
                      .read(`GET /guilds/${guildId}/threads/active`, DiscordPayloads.ActiveThreads, (api, signal) =>
                        api.guilds.getActiveThreads(guildId, { signal })
                      )
                      .pipe(Effect.map((t) => t.threads))
                  : Effect.succeed([] as ReadonlyArray<DiscordPayloads.Channel>)
              ]),
              ([list, threads]) => {
                for (const c of list) register(c, guildId)
                for (const t of threads) register(t, guildId)
                const watched = [...list.filter((c) => DiscordPayloads.textChannelTypes.has(c.type)), ...threads]
                  .map((c) => infos.get(c.id))
                  .filter(isWatched)
                return Stream.fromIterable(watched).pipe(Stream.flatMap(backfillChannel))
              },
              (e) =>
                `cannot list the channels of guild ${guildId}: ${e.message}. Invite the bot to the guild with permissions=${permissions}`
            )

          const backfill = (): Stream.Stream<Event, ConnectorError.ConnectorError> =>
            Stream.suspend(() => {
              backfilled = true
              return Stream.fromIterable(config.guilds).pipe(Stream.flatMap((g) => discoverGuild(g.id)))
            })

          /** The channel of a live event, fetched when not known yet (a thread created meanwhile). */
          const channelOf = (
            id: string,
            guildId: string | undefined
          ): Effect.Effect<MessageMapper.ChannelInfo | null, never> => {
            const known = infos.get(id)
            if (known !== undefined) return Effect.succeed(known)
            if (guildId === undefined || !guilds.has(guildId)) return Effect.succeed(null)
            return rest
              .read(`GET /channels/${id}`, DiscordPayloads.Channel, (api, signal) => api.channels.get(id, { signal }))
              .pipe(
                Effect.retry({ times: 2 }),
                Effect.map((c) => register(c, guildId)),
                Effect.catch(() => Effect.succeed(null))
              )
          }

          const invalid = (t: string, message: string): Array<Event> => [
            errorEvent("InvalidResponse", `ignored a malformed ${t} payload: ${message}`, 0, false)
          ]

          const onReaction = (r: DiscordPayloads.ReactionAdd): Effect.Effect<Array<Event>> =>
            Effect.gen(function* () {
              if (r.guild_id === undefined || !guilds.has(r.guild_id) || r.user_id === botUserId) return []
              if (r.member?.user?.bot === true) return []
              const roles = r.member?.roles ?? []
              const isModerator = roles.some((role) => config.moderatorRoles.includes(role))
              const by = {
                identifier: r.user_id,
                ...(r.member?.user?.username === undefined ? {} : { username: r.member.user.username })
              }
              const ref = DiscordReference.message(r.guild_id, r.channel_id, r.message_id)
              if (isModerator && MessageMapper.emojiMatches(config.notHarmfulEmoji, r.emoji)) {
                let target =
                  r.channel_id === config.modLogChannel
                    ? shared.modLog[r.message_id]
                    : shared.acted[ref]
                      ? ref
                      : undefined
                if (target === undefined && r.channel_id === config.modLogChannel) {
                  // A mod-log post from before the memory: read the reference it names.
                  const post = yield* rest
                    .read(
                      `GET /channels/${r.channel_id}/messages/${r.message_id}`,
                      DiscordPayloads.Message,
                      (api, signal) => api.channels.getMessage(r.channel_id, r.message_id, { signal })
                    )
                    .pipe(Effect.option)
                  if (Option.isSome(post) && post.value.author.id === botUserId) {
                    target = /^Reference: (discord:\S+)$/mu.exec(post.value.content)?.[1]
                  }
                }
                if (target === undefined) return []
                const reference = target
                return withCheckpoints(() => [
                  {
                    kind: "reversal",
                    reference,
                    ...(shared.acted[reference] === undefined ? {} : { action: shared.acted[reference] }),
                    by
                  }
                ])
              }
              if (!isModerator && MessageMapper.emojiMatches(config.reportEmoji, r.emoji)) {
                const info = yield* channelOf(r.channel_id, r.guild_id)
                if (!isWatched(info) || shared.acted[ref] !== undefined || reported.includes(ref)) return []
                return withCheckpoints(() => {
                  reported.push(ref)
                  return [
                    {
                      kind: "report",
                      reference: ref,
                      note: `reported by a member with the ${config.reportEmoji} reaction${info.name ? ` in #${info.name}` : ""}`,
                      by
                    }
                  ]
                })
              }
              return []
            })

          const onDispatch = (t: string, d: unknown): Stream.Stream<Event, ConnectorError.ConnectorError> => {
            const effect = (e: Effect.Effect<Array<Event>>) => Stream.unwrap(Effect.map(e, Stream.fromIterable))
            switch (t) {
              case "READY": {
                const ready = DiscordPayloads.decode(DiscordPayloads.Ready, d)
                if (!ready.ok) return Stream.fromIterable(invalid(t, ready.message))
                botUserId = ready.value.user.id
                failures = 0
                return backfill()
              }
              case "RESUMED":
                failures = 0
                return backfilled ? Stream.empty : backfill()
              case "THREAD_CREATE":
              case "THREAD_UPDATE":
              case "CHANNEL_CREATE":
              case "CHANNEL_UPDATE": {
                const c = DiscordPayloads.decode(DiscordPayloads.Channel, d)
                if (c.ok && c.value.guild_id !== undefined) register(c.value, c.value.guild_id)
                return Stream.empty
              }
              case "MESSAGE_CREATE": {
                const m = DiscordPayloads.decode(DiscordPayloads.Message, d)
                if (!m.ok) return Stream.fromIterable(invalid(t, m.message))
                const message = m.value
                return effect(
                  Effect.map(channelOf(message.channel_id, message.guild_id), (info) =>
                    isWatched(info) ? onMessage(message, info) : []
                  )
                )
              }
              case "MESSAGE_UPDATE": {
                const m = DiscordPayloads.decode(DiscordPayloads.MessageUpdate, d)
                if (!m.ok) return Stream.fromIterable(invalid(t, m.message))
                const update = m.value
                return effect(
                  Effect.map(channelOf(update.channel_id, update.guild_id), (info) => {
                    if (!isWatched(info) || update.content === undefined || !config.messages) return []
                    const known = contents.get(update.id)
                    // Embed unfurls resend the message with unchanged content: ignored.
                    if (known !== undefined ? known.text === update.content : !update.edited_timestamp) return []
                    if (MessageMapper.isIgnored(config, update.author, update.webhook_id, update.member, botUserId))
                      return []
                    const content = update.content
                    return withCheckpoints(() => {
                      bounded(contents, update.id, { text: content, attachments: known?.attachments ?? [] })
                      if (content.trim() === "") return []
                      return [
                        {
                          kind: "upsert",
                          reference: DiscordReference.message(info.guildId, info.id, update.id),
                          content: { type: "text", text: content },
                          ...MessageMapper.context(update, info)
                        }
                      ]
                    })
                  })
                )
              }
              case "MESSAGE_DELETE":
              case "MESSAGE_DELETE_BULK": {
                const single = t === "MESSAGE_DELETE"
                const m = single
                  ? DiscordPayloads.decode(DiscordPayloads.MessageDelete, d)
                  : DiscordPayloads.decode(DiscordPayloads.MessageDeleteBulk, d)
                if (!m.ok) return Stream.fromIterable(invalid(t, m.message))
                const value = m.value as {
                  channel_id: string
                  guild_id?: string
                  id?: string
                  ids?: ReadonlyArray<string>
                }
                const ids = value.ids ?? [value.id!]
                return effect(
                  Effect.map(channelOf(value.channel_id, value.guild_id), (info) => {
                    if (!isWatched(info)) return []
                    return withCheckpoints(() =>
                      ids.flatMap((id) => {
                        const known = contents.get(id)
                        contents.delete(id)
                        return [
                          { kind: "delete" as const, reference: DiscordReference.message(info.guildId, info.id, id) },
                          ...(known?.attachments ?? []).map((a) => ({
                            kind: "delete" as const,
                            reference: DiscordReference.attachment(info.guildId, info.id, id, a)
                          }))
                        ]
                      })
                    )
                  })
                )
              }
              case "GUILD_MEMBER_ADD": {
                if (!config.memberJoins) return Stream.empty
                const m = DiscordPayloads.decode(DiscordPayloads.GuildMemberAdd, d)
                if (!m.ok) return Stream.fromIterable(invalid(t, m.message))
                const member = m.value
                if (!guilds.has(member.guild_id) || (config.ignoreBots && member.user.bot === true)) return Stream.empty
                return Stream.fromIterable(withCheckpoints(() => [MessageMapper.memberItem(member)]))
              }
              case "MESSAGE_REACTION_ADD": {
                const r = DiscordPayloads.decode(DiscordPayloads.ReactionAdd, d)
                if (!r.ok) return Stream.fromIterable(invalid(t, r.message))
                return effect(onReaction(r.value))
              }
              default:
                return Stream.empty
            }
          }

          const onSignal = (signal: DiscordGateway.Signal): Stream.Stream<Event, ConnectorError.ConnectorError> => {
            switch (signal._tag) {
              case "Dispatch":
                // The sequence counts as handled once the dispatch's events were produced.
                return Stream.concat(
                  Stream.suspend(() => {
                    currentSeq = signal.s
                    return onDispatch(signal.t, signal.d)
                  }),
                  Stream.suspend(() => {
                    lastSeq = Math.max(lastSeq, signal.s)
                    return Stream.empty
                  })
                )
              case "Closed":
                if (DiscordGateway.fatalCloseCodes.has(signal.code))
                  return Stream.fail(fatalCloseError(signal.code, config))
                if (signal.code === 1000 || signal.code === 4200) return Stream.empty
                return Stream.make(
                  errorEvent(
                    "Unavailable",
                    `the Discord gateway closed the connection (code ${signal.code}); resuming`,
                    500
                  )
                )
              case "SocketError":
                return Stream.make(
                  errorEvent("Unavailable", `Discord gateway connection failed: ${signal.message}`, 500)
                )
              case "ConnectFailed":
                if (signal.status === 401) {
                  return Stream.fail(
                    connectorError(
                      "Unauthorized",
                      "Discord rejected the bot token (401 on GET /gateway/bot): copy a fresh token from the Developer Portal (your application -> Bot -> Reset Token)"
                    )
                  )
                }
                return Stream.make(errorEvent("Unavailable", signal.message, signal.retryInMillis))
            }
          }

          return Stream.fromQueue(gateway.signals).pipe(Stream.flatMap(onSignal))
        })
      )

    const act = DiscordActions.make({ config, rest, shared })
    return { events, act }
  })

/** The connector definition, found by the registry as `connector` (type `discord`). */
export const connector: Connector.Connector<DiscordConfig.Config> = Connector.make({
  type: "discord",
  configSchema: DiscordConfig.Config,
  capabilities: {
    actions: [...DiscordActions.kinds],
    duplicates: "possible",
    contentTypes: ["text", "image", "username"]
  },
  make
})

/**
 * The events of the last `limit` messages of each watched channel (for `warden source preview`): the
 * config's `history` is raised to `limit`, then `Preview.preview` runs the source and returns its first
 * `limit` events.
 */
export const preview = (
  config: unknown,
  limit: number,
  options?: Preview.PreviewOptions
): Effect.Effect<ReadonlyArray<SourceEvent.SourceEvent>, ConnectorError.ConnectorError> =>
  Preview.preview(
    connector,
    typeof config === "object" && config !== null
      ? { ...config, history: Math.min(10_000, Math.max(0, limit)) }
      : config,
    limit,
    options
  )

/** A running Discord source as a service, for programs that use the connector directly (not via the daemon). */
export class DiscordSource extends Context.Service<DiscordSource, Source.Source>()(
  "@warden/connector-discord/DiscordSource"
) {}

/** Provides {@link DiscordSource} from a config as a user writes it. */
export const layer = (options: DiscordConfig.ConfigInput): Layer.Layer<DiscordSource, ConnectorError.ConnectorError> =>
  Layer.effect(DiscordSource, Effect.flatMap(Connector.decodeConfig(connector, options), make))

/** Provides {@link DiscordSource} from an Effect `Config`, e.g. `Config.schema(DiscordConfig.Config, "discord")`. */
export const layerConfig = (
  config: EffectConfig.Config<DiscordConfig.Config>
): Layer.Layer<DiscordSource, ConnectorError.ConnectorError | EffectConfig.ConfigError> =>
  Layer.effect(DiscordSource, Effect.flatMap(config, make))
