/**
 * The actions a Discord source takes (`Source.act`): `delete`, `timeoutAuthor`, `react`, `modLog`, `kick`.
 *
 * Params read (all optional):
 * - `timeoutAuthor`: `durationSeconds` (or `seconds`), default 3600, capped at 28 days;
 * - `react`: `emoji` (unicode or `name:id` for a custom emoji), default ⚠️;
 * - `modLog`: `verdict: { type, severity, classifications }` (also `verdict.classifications` as strings
 *   or `{ name | category, score? }` objects).
 * `reason` (the daemon's verdict summary) becomes the audit-log reason (`Warden: <reason>`), and is
 * written in the mod-log post.
 *
 * Rate limits are left to `@discordjs/rest`; a 403 becomes a non-retryable `ActionError` naming the
 * missing permission, a 404 the result `notFound`.
 *
 * @since 0.1.0
 */
import { Action } from "@warden/connector"
import { Effect } from "effect"
import type * as DiscordConfig from "./DiscordConfig.ts"
import * as DiscordPayloads from "./DiscordPayloads.ts"
import * as DiscordReference from "./DiscordReference.ts"
import type { DiscordDecodeError, DiscordRestError, DiscordRestShape } from "./DiscordRest.ts"

/** The action kinds declared as capabilities. */
export const kinds = ["delete", "timeoutAuthor", "react", "modLog", "kick"] as const

/** Longest timeout Discord allows: 28 days. */
export const maxTimeoutSeconds = 28 * 24 * 3600

/** The permission each action needs, as Discord names it in the Developer Portal and the role settings. */
export const permissionOf: Record<(typeof kinds)[number], string> = {
  delete: "Manage Messages (MANAGE_MESSAGES) in the channel",
  timeoutAuthor: "Timeout Members (MODERATE_MEMBERS), with a role above the member's highest role",
  react: "Add Reactions (ADD_REACTIONS) and Read Message History in the channel",
  modLog: "View Channel and Send Messages (SEND_MESSAGES) in the mod-log channel",
  kick: "Kick Members (KICK_MEMBERS), with a role above the member's highest role"
}

/** What actions share with the event stream: who wrote what, and what Warden did. */
export interface Shared {
  /** reference -> action kind Warden took (the source's checkpoint carries it). */
  acted: Record<string, string>
  /** mod-log post id -> the reference it is about. */
  modLog: Record<string, string>
  /** message reference -> author user id, from the events (bounded by the source). */
  readonly authors: Map<string, string>
}

const auditReason = (action: Action.Action): string =>
  `Warden: ${action.reason ?? `${action.kind} by automated moderation`}`.slice(0, 512)

const fail = (action: Action.Action, reason: string, message: string, retryable = false) =>
  Effect.fail(new Action.ActionError({ kind: action.kind, reference: action.reference, reason, retryable, message }))

const num = (u: unknown): number | undefined => (typeof u === "number" && Number.isFinite(u) ? u : undefined)

const classificationsText = (verdict: unknown): string => {
  const list = (verdict as { classifications?: unknown } | undefined)?.classifications
  if (!Array.isArray(list) || list.length === 0) return "none"
  return list
    .map((c) => {
      if (typeof c === "string") return c
      if (typeof c === "object" && c !== null) {
        const o = c as Record<string, unknown>
        const name = String(o.name ?? o.category ?? o.type ?? "?")
        const score = num(o.score) ?? num(o.confidence)
        return score === undefined ? name : `${name} (${score})`
      }
      return String(c)
    })
    .join(", ")
}

/** The text of a mod-log post: verdict, classifications, link, reference and reason. */
export const modLogText = (action: Action.Action, link: string | undefined): string => {
  const verdict = action.params?.verdict as { type?: unknown; severity?: unknown } | undefined
  const lines = [
    `**Warden** ${verdict?.type === undefined ? "verdict" : String(verdict.type)}${
      verdict?.severity === undefined ? "" : ` (severity ${String(verdict.severity)})`
    }`,
    `Classifications: ${classificationsText(verdict)}`,
    ...(link === undefined ? [] : [`Message: ${link}`]),
    `Reference: ${action.reference}`,
    ...(action.reason === undefined ? [] : [`Reason: ${action.reason}`])
  ]
  return lines.join("\n").slice(0, 2000)
}

/** Makes `act` over the REST client. */
export const make = (options: {
  readonly config: DiscordConfig.Config
  readonly rest: DiscordRestShape
  readonly shared: Shared
}) => {
  const { config, rest, shared } = options

  const mapError =
    (action: Action.Action, kind: (typeof kinds)[number]) => (error: DiscordRestError | DiscordDecodeError) => {
      if (error._tag === "DiscordDecodeError") return fail(action, "Invalid", error.message)
      if (error.status === 404) return Effect.succeed({ status: "notFound" as const, detail: error.message })
      if (error.status === 403)
        return fail(action, "PermissionDenied", `${kind} needs the permission ${permissionOf[kind]}: ${error.message}`)
      if (error.status === 401) return fail(action, "PermissionDenied", `the bot token was rejected: ${error.message}`)
      if (error.status === 429) return fail(action, "RateLimited", error.message, true)
      if (error.retryable) return fail(action, "Unavailable", error.message, true)
      return fail(action, "Invalid", error.message)
    }

  const authorOf = (ref: { guild: string; channel: string; message: string }) => {
    const known = shared.authors.get(DiscordReference.message(ref.guild, ref.channel, ref.message))
    if (known !== undefined) return Effect.succeed(known)
    return rest
      .read(`GET /channels/${ref.channel}/messages/${ref.message}`, DiscordPayloads.Message, (api, signal) =>
        api.channels.getMessage(ref.channel, ref.message, { signal })
      )
      .pipe(Effect.map((m) => m.author.id))
  }

  const record = (reference: string, kind: string) => {
    delete shared.acted[reference]
    shared.acted[reference] = kind
  }

  /**
   * Runs the REST call of an action: `done` on success (the reference is then recorded as acted on),
   * else the action's failure (404: `notFound`).
   */
  const perform = <A>(
    action: Action.Action,
    kind: (typeof kinds)[number],
    effect: Effect.Effect<A, DiscordRestError | DiscordDecodeError>
  ) =>
    effect.pipe(
      Effect.map((): Action.ActionResult => ({ status: "done" })),
      Effect.catch(mapError(action, kind)),
      Effect.tap((result) =>
        Effect.sync(() => {
          if (result.status === "done") record(action.reference, kind)
        })
      )
    )

  /** The user an action on a member is about: the member itself, or the author of the message. */
  const userOf = (action: Action.Action, kind: "timeoutAuthor" | "kick", ref: DiscordReference.Reference) =>
    ref._tag === "Member"
      ? Effect.succeed<string | undefined>(ref.user)
      : authorOf(ref).pipe(Effect.catch((e) => mapError(action, kind)(e).pipe(Effect.as(undefined))))

  const authorGone: Action.ActionResult = { status: "notFound", detail: "the message (and so its author) is gone" }

  // One span per action run (the REST calls inside have their own): ids only, never the reason or a message.
  const deleteMessage = Effect.fn("DiscordActions.delete")(function* (
    action: Action.Action,
    ref: DiscordReference.Reference,
    reason: string
  ): Effect.fn.Return<Action.ActionResult, Action.ActionError> {
    if (ref._tag === "Member") return yield* fail(action, "Invalid", "delete needs a message reference, not a member")
    return yield* perform(
      action,
      "delete",
      rest.call(`DELETE /channels/${ref.channel}/messages/${ref.message}`, (api, signal) =>
        api.channels.deleteMessage(ref.channel, ref.message, { reason, signal })
      )
    )
  })

  /** An action on a member (the one referenced, or the author of the message): a span named after its kind. */
  const memberAction = (
    kind: "timeoutAuthor" | "kick",
    run: (
      action: Action.Action,
      ref: DiscordReference.Reference,
      reason: string,
      user: string
    ) => Effect.Effect<Action.ActionResult, Action.ActionError>
  ) =>
    Effect.fn(`DiscordActions.${kind}`)(function* (
      action: Action.Action,
      ref: DiscordReference.Reference,
      reason: string
    ): Effect.fn.Return<Action.ActionResult, Action.ActionError> {
      const user = yield* userOf(action, kind, ref)
      if (user === undefined) return authorGone
      return yield* run(action, ref, reason, user)
    })

  const kick = memberAction("kick", (action, ref, reason, user) =>
    perform(
      action,
      "kick",
      rest.call(`DELETE /guilds/${ref.guild}/members/${user}`, (api, signal) =>
        api.guilds.removeMember(ref.guild, user, { reason, signal })
      )
    )
  )

  const timeoutAuthor = memberAction("timeoutAuthor", (action, ref, reason, user) =>
    Effect.gen(function* () {
      const requested = num(action.params?.durationSeconds) ?? num(action.params?.seconds) ?? 3600
      if (requested <= 0) return yield* fail(action, "Invalid", "timeoutAuthor: durationSeconds must be positive")
      const seconds = Math.min(requested, maxTimeoutSeconds)
      const until = new Date(Date.now() + seconds * 1000).toISOString()
      const result = yield* perform(
        action,
        "timeoutAuthor",
        rest.call(`PATCH /guilds/${ref.guild}/members/${user}`, (api, signal) =>
          api.guilds.editMember(ref.guild, user, { communication_disabled_until: until }, { reason, signal })
        )
      )
      return seconds < requested ? { ...result, detail: `timeout capped at 28 days (asked ${requested} s)` } : result
    })
  )

  const react = Effect.fn("DiscordActions.react")(function* (
    action: Action.Action,
    ref: DiscordReference.Reference
  ): Effect.fn.Return<Action.ActionResult, Action.ActionError> {
    if (ref._tag === "Member") return yield* fail(action, "Invalid", "react needs a message reference, not a member")
    const emoji = typeof action.params?.emoji === "string" ? action.params.emoji : "⚠️"
    return yield* perform(
      action,
      "react",
      rest.call(`PUT /channels/${ref.channel}/messages/${ref.message}/reactions`, (api, signal) =>
        api.channels.addMessageReaction(ref.channel, ref.message, emoji.replace(/^<a?:/u, "").replace(/>$/u, ""), {
          signal
        })
      )
    )
  })

  const modLog = Effect.fn("DiscordActions.modLog")(function* (
    action: Action.Action,
    ref: DiscordReference.Reference
  ): Effect.fn.Return<Action.ActionResult, Action.ActionError> {
    const channel = config.modLogChannel
    if (channel === undefined) {
      return yield* fail(action, "Unsupported", "modLog needs `modLogChannel` in the Discord source config")
    }
    yield* Effect.annotateCurrentSpan("discord.channel", channel)
    const link = ref._tag === "Member" ? undefined : DiscordReference.messageUrl(ref.guild, ref.channel, ref.message)
    const posted = yield* rest
      .read(`POST /channels/${channel}/messages`, DiscordPayloads.Posted, (api, signal) =>
        api.channels.createMessage(
          channel,
          { content: modLogText(action, link), allowed_mentions: { parse: [] } },
          { signal }
        )
      )
      .pipe(
        Effect.map((m) => m.id),
        Effect.catch((e) => mapError(action, "modLog")(e).pipe(Effect.as(undefined)))
      )
    if (posted === undefined) return { status: "notFound", detail: "the mod-log channel was not found" }
    delete shared.modLog[posted]
    shared.modLog[posted] = action.reference
    return { status: "done", platformReference: posted }
  })

  // The source's `act`: a span per action (kind and reference: ids only), around the span of the kind run.
  return Effect.fn("DiscordActions.act")(function* (
    action: Action.Action
  ): Effect.fn.Return<Action.ActionResult, Action.ActionError> {
    yield* Effect.annotateCurrentSpan({ "warden.action": action.kind, "warden.reference": action.reference })
    const ref = DiscordReference.parse(action.reference)
    if (ref === undefined) return yield* fail(action, "Invalid", `not a Discord reference: ${action.reference}`)
    if (!(kinds as ReadonlyArray<string>).includes(action.kind)) {
      return yield* fail(
        action,
        "Unsupported",
        `the Discord connector does not support '${action.kind}' (supported: ${kinds.join(", ")})`
      )
    }
    const kind = action.kind as (typeof kinds)[number]
    const reason = auditReason(action)
    switch (kind) {
      case "delete":
        return yield* deleteMessage(action, ref, reason)
      case "timeoutAuthor":
        return yield* timeoutAuthor(action, ref, reason)
      case "kick":
        return yield* kick(action, ref, reason)
      case "react":
        return yield* react(action, ref)
      case "modLog":
        return yield* modLog(action, ref)
    }
  })
}
