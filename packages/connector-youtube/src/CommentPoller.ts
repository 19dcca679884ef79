/**
 * One poll of a YouTube source: lists comment threads (`commentThreads.list`, `part=snippet,replies`,
 * `order=time`, 100 per page, plain text) per channel / video and moderation status, newest first,
 * stopping at the page reaching below the high-water mark minus the overlap; pages the replies of
 * threads whose `totalReplyCount` exceeds the inlined replies (`comments.list`, `parentId`) when that
 * count changed since they were last fetched; dedupes by comment id and `updatedAt` (an edit is a new
 * version); looks the videos' titles up (`videos.list`, cached).
 *
 * A poll is all or nothing: its new state is returned only when every call succeeded.
 *
 * @since 0.1.0
 */
import type { SourceEvent } from "@warden/connector"
import { Effect } from "effect"
import type * as OAuth from "./OAuth.ts"
import * as YouTubeApi from "./YouTubeApi.ts"
import type * as YouTubeCheckpoint from "./YouTubeCheckpoint.ts"
import type * as YouTubeClient from "./YouTubeClient.ts"
import type * as YouTubeConfig from "./YouTubeConfig.ts"

/** The reference of a comment: `youtube:<commentId>`. */
export const reference = (commentId: string): string => `youtube:${commentId}`

/** The comment id of a reference, if it is a YouTube one. */
export const commentIdOf = (ref: string): string | undefined => /^youtube:([A-Za-z0-9_.-]+)$/u.exec(ref)?.[1]

/** One list to poll: a channel or a video, in one moderation status. */
export interface Scope {
  /** The key in the checkpoint, e.g. `channel:UC…` or `video:abc|heldForReview`. */
  readonly key: string
  readonly params: Readonly<Record<string, string>>
}

/** The lists a config polls. */
export const scopes = (config: YouTubeConfig.Config): Array<Scope> => {
  const statuses: Array<YouTubeApi.ModerationStatus> = ["published"]
  if (config.includeHeldForReview) statuses.push("heldForReview")
  if (config.includeLikelySpam) statuses.push("likelySpam")
  const targets: Array<{ key: string; params: Record<string, string> }> = []
  if (config.channelId !== undefined) {
    targets.push({ key: `channel:${config.channelId}`, params: { allThreadsRelatedToChannelId: config.channelId } })
  }
  for (const videoId of config.videoIds ?? []) targets.push({ key: `video:${videoId}`, params: { videoId } })
  return targets.flatMap((t) =>
    statuses.map((status) => ({
      key: status === "published" ? t.key : `${t.key}|${status}`,
      // `published` is the API's default; sending it would need owner auth.
      params: status === "published" ? t.params : { ...t.params, moderationStatus: status }
    }))
  )
}

/** Video titles by id, cached for the life of a source (bounded). */
export class TitleCache {
  private readonly titles = new Map<string, string>()
  /** How many titles are kept. */
  readonly capacity: number
  constructor(capacity = 2000) {
    this.capacity = capacity
  }
  /** The cached title of a video. */
  get(videoId: string): string | undefined {
    return this.titles.get(videoId)
  }
  /** Caches a title, evicting the oldest entry when full. */
  set(videoId: string, title: string): void {
    if (this.titles.size >= this.capacity) {
      const oldest = this.titles.keys().next().value
      if (oldest !== undefined) this.titles.delete(oldest)
    }
    this.titles.set(videoId, title)
  }
}

type Errors = YouTubeClient.ApiError | OAuth.OAuthError

/**
 * Lists the threads of one scope, newest first, down to `floor` (epoch millis) or `maxPages`. A span
 * per scope (`CommentPoller.listThreads`, with the scope's key).
 */
export const listThreads: (
  client: YouTubeClient.YouTubeClient,
  scope: Scope,
  floor: number,
  maxPages: number
) => Effect.Effect<{ readonly threads: Array<YouTubeApi.CommentThread>; readonly truncated: boolean }, Errors> =
  Effect.fn("CommentPoller.listThreads")(function* (
    client: YouTubeClient.YouTubeClient,
    scope: Scope,
    floor: number,
    maxPages: number
  ) {
    yield* Effect.annotateCurrentSpan("youtube.scope", scope.key)
    const threads: Array<YouTubeApi.CommentThread> = []
    let pageToken: string | undefined
    for (let page = 0; page < maxPages; page++) {
      const answer = yield* client.list(
        "commentThreads.list",
        "/commentThreads",
        {
          part: "snippet,replies",
          order: "time",
          maxResults: 100,
          textFormat: "plainText",
          ...scope.params,
          pageToken
        },
        YouTubeApi.CommentThreadListResponse
      )
      threads.push(...answer.items)
      const oldest = answer.items.at(-1)
      pageToken = answer.nextPageToken
      // Threads come newest first: once a page reaches below the floor, older pages hold nothing new.
      if (pageToken === undefined || oldest === undefined) return { threads, truncated: false }
      if (Date.parse(oldest.snippet.topLevelComment.snippet.publishedAt) < floor) return { threads, truncated: false }
    }
    return { threads, truncated: pageToken !== undefined }
  })

/**
 * Every reply of a thread (`comments.list`, `parentId`), all pages (up to `maxPages`). Not a span of
 * its own: it runs per thread of a page, and each of its requests is a `YouTubeClient.list` span.
 */
export const listReplies = (
  client: YouTubeClient.YouTubeClient,
  parentId: string,
  maxPages: number
): Effect.Effect<Array<YouTubeApi.Comment>, Errors> =>
  Effect.gen(function* () {
    const replies: Array<YouTubeApi.Comment> = []
    let pageToken: string | undefined
    for (let page = 0; page < maxPages; page++) {
      const answer = yield* client.list(
        "comments.list",
        "/comments",
        { part: "snippet", parentId, maxResults: 100, textFormat: "plainText", pageToken },
        YouTubeApi.CommentListResponse
      )
      replies.push(...answer.items)
      pageToken = answer.nextPageToken
      if (pageToken === undefined) break
    }
    return replies
  })

/**
 * Fetches the titles of videos not in the cache (`videos.list`, 50 ids per call). A span per poll
 * (`CommentPoller.fetchTitles`, with the number of titles missing).
 */
export const fetchTitles: (
  client: YouTubeClient.YouTubeClient,
  cache: TitleCache,
  videoIds: Iterable<string>
) => Effect.Effect<void, Errors> = Effect.fn("CommentPoller.fetchTitles")(function* (
  client: YouTubeClient.YouTubeClient,
  cache: TitleCache,
  videoIds: Iterable<string>
) {
  const missing = [...new Set(videoIds)].filter((id) => cache.get(id) === undefined)
  yield* Effect.annotateCurrentSpan("youtube.titles_missing", missing.length)
  for (let i = 0; i < missing.length; i += 50) {
    const chunk = missing.slice(i, i + 50)
    const answer = yield* client.list(
      "videos.list",
      "/videos",
      { part: "snippet", id: chunk.join(","), maxResults: 50 },
      YouTubeApi.VideoListResponse
    )
    for (const video of answer.items) cache.set(video.id, video.snippet.title)
    // A deleted or private video has no title: fall back to its id, once.
    for (const id of chunk) if (cache.get(id) === undefined) cache.set(id, id)
  }
})

/** A comment found by a poll, with where it sits. */
interface Found {
  readonly comment: YouTubeApi.Comment
  readonly videoId: string | undefined
  readonly parentId: string | undefined
  readonly threadId: string
}

/**
 * The author's stable identifier: their channel id; for an author the Data API gives no channel id
 * (`authorChannelId` is left out for an author without a channel), their channel URL, else
 * `name:<display name>` (display names are the authors' unique `@handle`s nowadays).
 */
const authorIdentifier = (s: YouTubeApi.Comment["snippet"]): string =>
  s.authorChannelId?.value ?? s.authorChannelUrl ?? `name:${s.authorDisplayName}`

/** The upsert of a comment (without checkpoint). */
export const toUpsert = (found: Found, titles: TitleCache): Omit<SourceEvent.Upsert, "checkpoint"> => {
  const s = found.comment.snippet
  const videoId = found.videoId
  const title = videoId === undefined ? undefined : titles.get(videoId)
  return {
    kind: "upsert",
    reference: reference(found.comment.id),
    content: { type: "text", text: s.textDisplay },
    publishedAt: s.publishedAt,
    ...(videoId === undefined
      ? {}
      : { permalink: `https://www.youtube.com/watch?v=${videoId}&lc=${found.comment.id}` }),
    author: {
      username: s.authorDisplayName,
      identifier: authorIdentifier(s),
      ...(s.authorChannelUrl === undefined ? {} : { permalink: s.authorChannelUrl }),
      ...(s.authorProfileImageUrl === undefined ? {} : { profilePictureUrl: s.authorProfileImageUrl })
    },
    ...(videoId === undefined
      ? {}
      : {
          post: {
            title: title ?? videoId,
            reference: videoId,
            permalink: `https://www.youtube.com/watch?v=${videoId}`
          }
        }),
    ...(found.parentId === undefined
      ? {}
      : { thread: { parentReference: reference(found.parentId), topLevelReference: reference(found.threadId) } }),
    platformIds: { ...(videoId === undefined ? {} : { video: videoId }), comment: found.comment.id }
  }
}

/** Settings of a poll. */
export interface PollOptions {
  readonly scopes: ReadonlyArray<Scope>
  readonly includeReplies: boolean
  readonly overlapMillis: number
  readonly backfillMillis: number
  readonly maxPages: number
  readonly now: number
}

/** What a poll found: upserts oldest first, the new state (held and quota untouched) and truncated lists. */
export interface PollOutcome {
  readonly events: ReadonlyArray<Omit<SourceEvent.Upsert, "checkpoint">>
  readonly state: YouTubeCheckpoint.State
  readonly truncated: ReadonlyArray<string>
}

const time = (iso: string): number => {
  const t = Date.parse(iso)
  return Number.isNaN(t) ? 0 : t
}

/**
 * Polls every scope once and diffs against `previous`. A span per poll (`CommentPoller.poll`, with
 * the number of scopes and of comments found new or edited; never a comment's text or author).
 */
export const poll: (
  client: YouTubeClient.YouTubeClient,
  titles: TitleCache,
  previous: YouTubeCheckpoint.State,
  options: PollOptions
) => Effect.Effect<PollOutcome, Errors> = Effect.fn("CommentPoller.poll")(function* (
  client: YouTubeClient.YouTubeClient,
  titles: TitleCache,
  previous: YouTubeCheckpoint.State,
  options: PollOptions
) {
  yield* Effect.annotateCurrentSpan("youtube.scopes", options.scopes.length)
  const scopesState: Record<string, { hwm: string }> = {}
  const seen: Record<string, string> = { ...previous.seen }
  const replyCounts: Record<string, number> = {}
  const found: Array<Found & { readonly floor: number }> = []
  const truncated: Array<string> = []
  const listed = new Set<string>()
  const initialHwm = new Date(options.now - options.backfillMillis).toISOString()

  for (const scope of options.scopes) {
    const hwm = previous.scopes[scope.key]?.hwm ?? initialHwm
    const floor = time(hwm) - options.overlapMillis
    const result = yield* listThreads(client, scope, floor, options.maxPages)
    if (result.truncated) truncated.push(scope.key)
    let newest = time(hwm)
    for (const thread of result.threads) {
      const top = thread.snippet.topLevelComment
      newest = Math.max(newest, time(top.snippet.publishedAt))
      if (listed.has(thread.id)) continue
      listed.add(thread.id)
      const videoId = thread.snippet.videoId ?? top.snippet.videoId
      found.push({ comment: top, videoId, parentId: undefined, threadId: thread.id, floor })
      if (!options.includeReplies) continue
      const inline = thread.replies?.comments ?? []
      const total = thread.snippet.totalReplyCount
      const known = previous.replyCounts[thread.id]
      const replies =
        total > inline.length && known !== total ? yield* listReplies(client, thread.id, options.maxPages) : inline
      replyCounts[thread.id] = total
      for (const reply of replies) {
        found.push({
          comment: reply,
          videoId: reply.snippet.videoId ?? videoId,
          parentId: reply.snippet.parentId ?? thread.id,
          threadId: thread.id,
          floor
        })
      }
    }
    scopesState[scope.key] = { hwm: new Date(newest).toISOString() }
  }

  const fresh: Array<Found> = []
  const emittedIds = new Set<string>()
  for (const f of found) {
    const { id, snippet } = f.comment
    if (emittedIds.has(id)) continue
    const before = seen[id]
    if (before === snippet.updatedAt) continue
    const latest = Math.max(time(snippet.publishedAt), time(snippet.updatedAt))
    if (before === undefined && latest < f.floor) continue
    emittedIds.add(id)
    delete seen[id]
    seen[id] = snippet.updatedAt
    fresh.push(f)
  }
  yield* fetchTitles(
    client,
    titles,
    fresh.flatMap((f) => (f.videoId === undefined ? [] : [f.videoId]))
  )

  // Forget what is below every list's floor (minus a day of margin): it can no longer be emitted as new.
  const floors = Object.values(scopesState).map((s) => time(s.hwm) - options.overlapMillis)
  const pruneBelow = Math.min(...floors) - 86_400_000
  const keptSeen: Record<string, string> = {}
  for (const [id, updatedAt] of Object.entries(seen)) if (time(updatedAt) >= pruneBelow) keptSeen[id] = updatedAt
  for (const [threadId, count] of Object.entries(previous.replyCounts)) {
    if (!(threadId in replyCounts) && threadId in keptSeen) replyCounts[threadId] = count
  }

  const events = fresh
    .sort((a, b) => time(a.comment.snippet.publishedAt) - time(b.comment.snippet.publishedAt))
    .map((f) => toUpsert(f, titles))
  yield* Effect.annotateCurrentSpan("youtube.comments", events.length)
  return {
    events,
    truncated,
    state: { ...previous, scopes: scopesState, seen: keptSeen, replyCounts }
  }
})
