/**
 * Moderation actions on YouTube comments (`comments.setModerationStatus`, 50 quota units per call):
 * `holdForReview` -> `heldForReview`, `reject` -> `rejected` (with `params.banAuthor: true` the author
 * is banned from the channel too), `publish` and `restore` -> `published`. `restore` reverses a
 * `holdForReview`; YouTube refuses to publish a rejected comment again, so a `reject` cannot be
 * restored (the action fails, not retryable, saying so). Actions arriving within the batch window go
 * out as one call of up to 50 ids per target status.
 *
 * Also the reversal check: a comment Warden held that a moderator approved in YouTube Studio.
 *
 * @since 0.1.0
 */
import { Action, type SourceEvent } from "@warden/connector"
import { Clock, Deferred, Duration, Effect, Option, Queue, type Scope } from "effect"
import * as CommentPoller from "./CommentPoller.ts"
import type * as OAuth from "./OAuth.ts"
import type * as QuotaBudget from "./QuotaBudget.ts"
import * as YouTubeApi from "./YouTubeApi.ts"
import type * as YouTubeClient from "./YouTubeClient.ts"

/** The action kinds supported, and the moderation status each sets. */
export const statusOf = {
  holdForReview: "heldForReview",
  reject: "rejected",
  publish: "published",
  restore: "published"
} as const satisfies Record<string, YouTubeApi.ModerationStatus>

/** The action kinds supported. */
export const actionKinds = Object.keys(statusOf) as ReadonlyArray<keyof typeof statusOf>

/** How long a status this source set is taken as still in place (a repeat within it is `alreadyDone`). */
export const appliedMemoryMillis = 10 * 60_000

/** How many comments' last status the source remembers. */
const appliedMemory = 5000

/** Most ids per `setModerationStatus` call. */
export const maxIdsPerCall = 50

interface Pending {
  readonly action: Action.Action
  readonly commentId: string
  readonly status: (typeof statusOf)[keyof typeof statusOf]
  readonly banAuthor: boolean
  readonly done: Deferred.Deferred<Action.ActionResult, Action.ActionError>
}

/** Settings of the moderator. */
export interface Options {
  readonly client: YouTubeClient.YouTubeClient | undefined
  readonly budget: QuotaBudget.QuotaBudget
  readonly windowMillis: number
  /** Called after a status was set on some comments (to track held comments). */
  readonly onApplied: (status: Pending["status"], commentIds: ReadonlyArray<string>) => Effect.Effect<void>
}

const actionError = (
  action: Action.Action,
  reason: Action.ActionError["reason"],
  retryable: boolean,
  message: string,
  retryAfterMillis?: number
) =>
  new Action.ActionError({
    kind: action.kind,
    reference: action.reference,
    reason,
    retryable,
    message,
    ...(retryAfterMillis === undefined ? {} : { retryAfterMillis })
  })

const fromApiError = (
  action: Action.Action,
  error: YouTubeClient.ApiError | OAuth.OAuthError,
  untilReset: number
): Action.ActionError => {
  if (error._tag === "OAuthError") {
    return error.kind === "Unavailable"
      ? actionError(action, "Unavailable", true, error.message)
      : actionError(action, "PermissionDenied", false, error.message)
  }
  switch (error.kind) {
    case "QuotaExceeded":
      return actionError(
        action,
        "RateLimited",
        true,
        "the daily YouTube Data API quota is spent; it resets at midnight Pacific time",
        untilReset
      )
    case "RateLimited":
      return actionError(action, "RateLimited", true, error.message)
    case "Unauthorized":
    case "Forbidden":
      return actionError(
        action,
        "PermissionDenied",
        false,
        `${error.message} (moderation needs OAuth as the channel owner with the youtube.force-ssl scope)`
      )
    case "NotFound":
      return actionError(action, "NotFound", false, error.message)
    case "Invalid":
      return actionError(
        action,
        "Invalid",
        false,
        action.kind === "restore"
          ? `${error.message} (YouTube does not publish a rejected comment again, nor one its author deleted: a reject cannot be restored)`
          : error.message
      )
    default:
      return actionError(action, "Unavailable", true, error.message)
  }
}

/** A moderator: `act` queues an action and waits for the batch it went out in. */
export interface Moderator {
  readonly act: (action: Action.Action) => Effect.Effect<Action.ActionResult, Action.ActionError>
}

/** Starts the batching fiber in the scope. */
export const make = (options: Options): Effect.Effect<Moderator, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Pending>()
    // What this source set on each comment lately: a repeat of the same action (the daemon retrying
    // after a lost answer) is `alreadyDone` without another 50-unit call. Kept for a short while only:
    // a moderator may change the status afterwards, and a later action must then reach YouTube.
    const applied = new Map<string, { readonly key: string; readonly at: number }>()
    const keyOf = (status: Pending["status"], banAuthor: boolean) => `${status}|${banAuthor}`
    const remember = (status: Pending["status"], banAuthor: boolean, ids: ReadonlyArray<string>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          for (const id of ids) {
            applied.delete(id)
            applied.set(id, { key: keyOf(status, banAuthor), at: now })
          }
          while (applied.size > appliedMemory) applied.delete(applied.keys().next().value as string)
        })
      )

    /** One call; YouTube saying the daily quota is spent spends the budget too (no call until the reset). */
    const call = (status: Pending["status"], banAuthor: boolean, ids: ReadonlyArray<string>) =>
      options
        .client!.post("comments.setModerationStatus", "/comments/setModerationStatus", {
          id: ids.join(","),
          moderationStatus: status,
          ...(banAuthor ? { banAuthor: "true" } : {})
        })
        .pipe(
          Effect.tapError((error) =>
            error._tag === "ApiError" && error.kind === "QuotaExceeded" ? options.budget.exhaust : Effect.void
          )
        )

    // A span per batch applied (one `setModerationStatus` call, or one per id when the batch call is
    // refused): the status, whether the authors are banned, how many actions and comments.
    const settle = Effect.fn("Moderation.settle")(function* (
      batch: ReadonlyArray<Pending>,
      status: Pending["status"],
      banAuthor: boolean
    ) {
      const ids = [...new Set(batch.map((p) => p.commentId))]
      yield* Effect.annotateCurrentSpan({
        "youtube.moderation_status": status,
        "youtube.ban_author": banAuthor,
        "youtube.actions": batch.length,
        "youtube.comments": ids.length
      })
      const fail = (p: Pending, e: YouTubeClient.ApiError | OAuth.OAuthError) =>
        Effect.flatMap(options.budget.resetAt, (at) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Deferred.fail(p.done, fromApiError(p.action, e, Math.max(0, at - now)))
          )
        )
      /** Whether the quota left pays for one more call; when not, `pending` fail `RateLimited` until the reset. */
      const affordable = (pending: ReadonlyArray<Pending>) =>
        Effect.gen(function* () {
          const available = yield* options.budget.remaining
          if (available >= YouTubeApi.cost["comments.setModerationStatus"]) return true
          const at = yield* options.budget.resetAt
          const now = yield* Clock.currentTimeMillis
          for (const p of pending) {
            yield* Deferred.fail(
              p.done,
              actionError(
                p.action,
                "RateLimited",
                true,
                "not enough YouTube Data API quota left today for setModerationStatus (50 units); it resets at midnight Pacific time",
                Math.max(0, at - now)
              )
            )
          }
          return false
        })
      if (!(yield* affordable(batch))) return
      const result = yield* Effect.result(call(status, banAuthor, ids))
      if (result._tag === "Success") {
        yield* remember(status, banAuthor, ids)
        yield* options.onApplied(status, ids)
        for (const p of batch) yield* Deferred.succeed(p.done, { status: "done" })
        return
      }
      const error = result.failure
      if (error._tag === "ApiError" && (error.kind === "NotFound" || error.kind === "Invalid") && ids.length > 1) {
        // One of the ids is gone (404), or its status cannot be set (400: e.g. publishing a rejected
        // comment), and the whole call was refused: set the others one by one.
        for (const id of ids) {
          const own = batch.filter((p) => p.commentId === id)
          // each id alone is another 50-unit call: only while the quota left pays for it
          if (!(yield* affordable(own))) continue
          const single = yield* Effect.result(call(status, banAuthor, [id]))
          if (single._tag === "Success") {
            yield* remember(status, banAuthor, [id])
            yield* options.onApplied(status, [id])
            for (const p of own) yield* Deferred.succeed(p.done, { status: "done" })
          } else if (single.failure._tag === "ApiError" && single.failure.kind === "NotFound") {
            for (const p of own) yield* Deferred.succeed(p.done, { status: "notFound" })
          } else {
            for (const p of own) yield* fail(p, single.failure)
          }
        }
        return
      }
      if (error._tag === "ApiError" && error.kind === "NotFound") {
        for (const p of batch) yield* Deferred.succeed(p.done, { status: "notFound" })
        return
      }
      for (const p of batch) yield* fail(p, error)
    })

    const drain = Effect.gen(function* () {
      const out: Array<Pending> = []
      for (;;) {
        const next = yield* Queue.poll(queue)
        if (Option.isNone(next)) return out
        out.push(next.value)
      }
    })

    const loop = Effect.forever(
      Effect.gen(function* () {
        const first = yield* Queue.take(queue)
        yield* Effect.sleep(Duration.millis(options.windowMillis))
        const all = [first, ...(yield* drain)]
        const groups = new Map<string, Array<Pending>>()
        for (const p of all) {
          const key = `${p.status}|${p.banAuthor}`
          const group = groups.get(key) ?? []
          group.push(p)
          groups.set(key, group)
        }
        for (const group of groups.values()) {
          // Up to 50 distinct ids per call.
          let chunk: Array<Pending> = []
          const ids = new Set<string>()
          const flush = () => settle(chunk, group[0]!.status, group[0]!.banAuthor)
          for (const p of group) {
            if (!ids.has(p.commentId) && ids.size === maxIdsPerCall) {
              yield* flush()
              chunk = []
              ids.clear()
            }
            ids.add(p.commentId)
            chunk.push(p)
          }
          if (chunk.length > 0) yield* flush()
        }
      })
    )
    if (options.client !== undefined) yield* Effect.forkScoped(loop)

    // A span per action, from the call until the batch it went out in is settled (kind and reference:
    // the comment id, never its text).
    const act = Effect.fn("Moderation.act")(function* (
      action: Action.Action
    ): Effect.fn.Return<Action.ActionResult, Action.ActionError> {
      yield* Effect.annotateCurrentSpan({ "warden.action": action.kind, "warden.reference": action.reference })
      const status = (statusOf as Record<string, Pending["status"] | undefined>)[action.kind]
      if (status === undefined) {
        return yield* actionError(
          action,
          "Unsupported",
          false,
          `YouTube supports ${actionKinds.join(", ")}; not ${action.kind}`
        )
      }
      if (options.client === undefined) {
        return yield* actionError(
          action,
          "PermissionDenied",
          false,
          "moderation needs OAuth as the channel owner (clientId, clientSecret, refreshToken), not an API key"
        )
      }
      const commentId = CommentPoller.commentIdOf(action.reference)
      if (commentId === undefined) {
        return yield* actionError(action, "Invalid", false, `not a YouTube reference: ${action.reference}`)
      }
      const banAuthor = action.params?.banAuthor === true
      if (banAuthor && action.kind !== "reject") {
        return yield* actionError(action, "Invalid", false, "banAuthor is only allowed with reject")
      }
      const last = applied.get(commentId)
      const now = yield* Clock.currentTimeMillis
      if (last !== undefined && last.key === keyOf(status, banAuthor) && now - last.at < appliedMemoryMillis) {
        return { status: "alreadyDone" as const }
      }
      const done = yield* Deferred.make<Action.ActionResult, Action.ActionError>()
      yield* Queue.offer(queue, { action, commentId, status, banAuthor, done })
      return yield* Deferred.await(done)
    })
    return { act }
  })

/** How long a held comment is watched for approval before it is forgotten. */
export const heldRetentionMillis = 30 * 86_400_000

/**
 * Checks the comments Warden held: a comment no longer in the held-for-review lists and returned by
 * `comments.list(id)` as visible (no `moderationStatus`, or `published`) was approved by a moderator:
 * a reversal. Comments still held stay watched; rejected ones and those watched for over 30 days are
 * forgotten. Returns the reversals (without checkpoint) and the new `held` map. A span per check
 * (`Moderation.checkReversals`, with the number of comments watched).
 */
export const checkReversals: (
  client: YouTubeClient.YouTubeClient,
  scopes: ReadonlyArray<CommentPoller.Scope>,
  held: Readonly<Record<string, string>>,
  options: { readonly maxPages: number; readonly now: number }
) => Effect.Effect<
  { readonly reversals: Array<Omit<SourceEvent.Reversal, "checkpoint">>; readonly held: Record<string, string> },
  YouTubeClient.ApiError | OAuth.OAuthError
> = Effect.fn("Moderation.checkReversals")(function* (
  client: YouTubeClient.YouTubeClient,
  scopes: ReadonlyArray<CommentPoller.Scope>,
  held: Readonly<Record<string, string>>,
  options: { readonly maxPages: number; readonly now: number }
) {
  const ids = Object.keys(held)
  yield* Effect.annotateCurrentSpan("youtube.held", ids.length)
  if (ids.length === 0) return { reversals: [], held: { ...held } }
  const stillHeld = new Set<string>()
  for (const scope of scopes) {
    if (scope.params.moderationStatus !== undefined) continue
    const heldScope: CommentPoller.Scope = {
      key: `${scope.key}|heldForReview`,
      params: { ...scope.params, moderationStatus: "heldForReview" }
    }
    const listed = yield* CommentPoller.listThreads(client, heldScope, Number.NEGATIVE_INFINITY, options.maxPages)
    if (listed.truncated) return { reversals: [], held: { ...held } }
    for (const thread of listed.threads) {
      stillHeld.add(thread.snippet.topLevelComment.id)
      for (const reply of thread.replies?.comments ?? []) stillHeld.add(reply.id)
    }
  }
  const next: Record<string, string> = {}
  const candidates = ids.filter((id) => !stillHeld.has(id))
  for (const id of ids) if (stillHeld.has(id)) next[id] = held[id]!
  const visible = new Map<string, YouTubeApi.Comment>()
  for (let i = 0; i < candidates.length; i += 50) {
    const answer = yield* client.list(
      "comments.list",
      "/comments",
      { part: "snippet", id: candidates.slice(i, i + 50).join(","), maxResults: 50, textFormat: "plainText" },
      YouTubeApi.CommentListResponse
    )
    for (const c of answer.items) visible.set(c.id, c)
  }
  const reversals: Array<Omit<SourceEvent.Reversal, "checkpoint">> = []
  for (const id of candidates) {
    const comment = visible.get(id)
    const status = comment?.snippet.moderationStatus
    if (comment !== undefined && (status === undefined || status === "published")) {
      reversals.push({ kind: "reversal", reference: CommentPoller.reference(id), action: "holdForReview" })
    } else if (comment !== undefined && status !== "rejected") {
      next[id] = held[id]!
    } else if (comment === undefined && options.now - Date.parse(held[id]!) < heldRetentionMillis) {
      // Not returned: rejected or deleted, or not visible yet; keep watching for a while.
      next[id] = held[id]!
    }
  }
  return { reversals, held: next }
})
