/**
 * The YouTube connector: comments and replies of a channel and/or videos as `upsert` events,
 * moderation actions (`holdForReview`, `reject`, `publish`, `restore`) and `reversal` events when a
 * moderator approves in YouTube Studio a comment Warden held.
 *
 * @since 0.1.0
 */
import { Backoff, Connector, ConnectorError, Http, type Source, type SourceEvent } from "@warden/connector"
import { Clock, Context, Duration, Effect, Layer, Option, type Scope, Stream } from "effect"
import type * as EffectConfig from "effect/Config"
import * as CommentPoller from "./CommentPoller.ts"
import * as Moderation from "./Moderation.ts"
import * as OAuth from "./OAuth.ts"
import * as QuotaBudget from "./QuotaBudget.ts"
import * as YouTubeCheckpoint from "./YouTubeCheckpoint.ts"
import * as YouTubeClient from "./YouTubeClient.ts"
import * as YouTubeConfig from "./YouTubeConfig.ts"

const connectorError = (reason: string, message: string, retryable = false) =>
  new ConnectorError.ConnectorError({ source: "youtube", reason, retryable, message })

/** The label of a source in logs and metrics: its channel and videos. */
export const label = (config: YouTubeConfig.Config): string =>
  [config.channelId, ...(config.videoIds ?? [])].filter((x) => x !== undefined).join(",")

const backoffMillis = (config: YouTubeConfig.Config, failures: number): number =>
  Backoff.delayMillis(config.retry, failures)

/** The connector's source over a decoded config; its connections live in the scope. */
export const make = (
  config: YouTubeConfig.Config
): Effect.Effect<Source.Source, ConnectorError.ConnectorError, Scope.Scope> =>
  Effect.gen(function* () {
    // The SDK's client on a pool of its own, closed with the scope: no keep-alive socket outlives the
    // source; through HTTP_PROXY/HTTPS_PROXY when set (NO_PROXY honoured), as the API client goes.
    const http = yield* Http.client()
    const timeoutMillis = Duration.toMillis(config.timeout)
    const sourceLabel = label(config)
    const budget = QuotaBudget.make(
      { dailyQuota: config.dailyQuota, reserve: config.quotaReserve, label: sourceLabel },
      undefined
    )
    const oauth =
      config.clientId !== undefined && config.clientSecret !== undefined && config.refreshToken !== undefined
        ? yield* OAuth.make(http, {
            tokenUrl: config.tokenUrl,
            clientId: config.clientId,
            clientSecret: config.clientSecret,
            refreshToken: config.refreshToken,
            timeoutMillis
          })
        : undefined
    const auth: YouTubeClient.Auth =
      oauth !== undefined ? { _tag: "OAuth", tokens: oauth } : { _tag: "ApiKey", key: config.apiKey! }
    const client = YouTubeClient.make(http, { baseUrl: config.apiBaseUrl, auth, budget, timeoutMillis })
    const titles = new CommentPoller.TitleCache()
    const scopes = CommentPoller.scopes(config)

    // Comments Warden held for review, shared by `act` and the stream (and saved in checkpoints).
    let held: Record<string, string> = {}
    const moderator = yield* Moderation.make({
      client: oauth === undefined ? undefined : client,
      budget,
      windowMillis: Duration.toMillis(config.actionBatchWindow),
      onApplied: (status, ids) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const next = { ...held }
          for (const id of ids) {
            if (status === "heldForReview") next[id] = new Date(now).toISOString()
            else delete next[id]
          }
          held = next
        })
    })

    // `once`: one round, a failure fails the stream (Source.pollOnce); otherwise endless, a failure
    // is an error event and a retry with backoff (Source.events).
    const run = (
      from: Option.Option<unknown>,
      once: boolean
    ): Stream.Stream<SourceEvent.SourceEvent, ConnectorError.ConnectorError> =>
      Stream.unwrap(
        Effect.gen(function* () {
          const initial = Option.isSome(from)
            ? yield* YouTubeCheckpoint.decode(from.value).pipe(
                Effect.mapError((e) => connectorError("InvalidCheckpoint", `not a YouTube checkpoint: ${e.message}`))
              )
            : YouTubeCheckpoint.empty
          if (initial.quota !== undefined) yield* budget.restore(initial.quota)
          held = { ...initial.held, ...held }
          let state: YouTubeCheckpoint.State = initial
          let failures = 0
          let nextAt = 0
          let nextReversalCheck = 0
          let pollCost = scopes.length
          const pollMillis = Duration.toMillis(config.pollInterval)
          const reversalMillis = Duration.toMillis(config.reversalCheckInterval)
          let pausedLogged = false

          // Cursors, held comments and quota only: `seen` and `replyCounts` stay in memory.
          const checkpoint = Effect.map(budget.snapshot, (quota) =>
            YouTubeCheckpoint.toCheckpoint({ ...state, held, quota })
          )

          const errorEvent = (reason: string, message: string, wait: number): SourceEvent.ErrorEvent => ({
            kind: "error",
            source: `youtube:${sourceLabel}`,
            reason,
            message,
            attempt: failures,
            retryInMillis: wait
          })

          const round = Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const usedBefore = (yield* budget.snapshot).used
            const outcome = yield* CommentPoller.poll(client, titles, state, {
              scopes,
              includeReplies: config.includeReplies,
              overlapMillis: Duration.toMillis(config.overlap),
              backfillMillis: Duration.toMillis(config.backfill),
              maxPages: config.maxPagesPerPoll,
              now
            })
            for (const key of outcome.truncated) {
              yield* Effect.logWarning(
                `youtube ${sourceLabel}: ${key} had more than ${config.maxPagesPerPoll} pages of new threads: the older ones were not read and will not be (raise maxPagesPerPoll or poll more often)`
              )
            }
            let reversals: Array<Omit<SourceEvent.Reversal, "checkpoint">> = []
            let nextHeld: Record<string, string> | undefined
            const heldAtCheck = held
            if (oauth !== undefined && now >= nextReversalCheck && Object.keys(held).length > 0) {
              const checked = yield* Moderation.checkReversals(client, scopes, held, {
                maxPages: config.maxPagesPerPoll,
                now
              })
              reversals = checked.reversals
              nextHeld = checked.held
              nextReversalCheck = now + reversalMillis
            }
            const usedAfter = (yield* budget.snapshot).used
            pollCost = Math.max(1, Math.round(0.7 * pollCost + 0.3 * Math.max(1, usedAfter - usedBefore)))
            return { outcome, reversals, nextHeld, heldAtCheck }
          })

          const step = Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            if (nextAt > now) yield* Effect.sleep(Duration.millis(nextAt - now))
            // Keep the reserve for actions: wait for the reset when polling would eat into it.
            const available = yield* budget.availableForPolling
            if (available < pollCost) {
              const resetAt = yield* budget.resetAt
              if (once) {
                return yield* connectorError(
                  "QuotaExceeded",
                  `youtube ${sourceLabel}: polling is paused until ${new Date(resetAt).toISOString()} to keep quotaReserve=${config.quotaReserve} units for actions`
                )
              }
              const wait = Math.max(1000, resetAt - (yield* Clock.currentTimeMillis))
              if (!pausedLogged) {
                yield* Effect.logWarning(
                  `youtube ${sourceLabel}: polling paused until ${new Date(resetAt).toISOString()} (midnight Pacific) to keep quotaReserve=${config.quotaReserve} units for actions`
                )
                pausedLogged = true
              }
              nextAt = (yield* Clock.currentTimeMillis) + wait
              return [] as ReadonlyArray<SourceEvent.SourceEvent>
            }
            pausedLogged = false
            const result = yield* Effect.result(round)
            const after = yield* Clock.currentTimeMillis
            if (result._tag === "Failure") {
              const error = result.failure
              if (error._tag === "OAuthError" && error.kind !== "Unavailable") {
                return yield* connectorError("Unauthorized", error.message)
              }
              if (error._tag === "ApiError" && error.kind === "Unauthorized") {
                return yield* connectorError(
                  "Unauthorized",
                  `${error.message}: the ${oauth === undefined ? "API key" : "OAuth token"} was rejected`
                )
              }
              if (once) {
                const kind = error._tag === "OAuthError" ? "Unavailable" : error.kind
                return yield* connectorError(kind, error.message)
              }
              failures++
              if (error._tag === "ApiError" && error.kind === "QuotaExceeded") {
                yield* budget.exhaust
                const resetAt = yield* budget.resetAt
                const wait = Math.max(1000, resetAt - after)
                nextAt = after + wait
                yield* Effect.logWarning(
                  `youtube ${sourceLabel}: the YouTube Data API daily quota is exhausted (quotaExceeded); source paused until ${new Date(resetAt).toISOString()} (midnight Pacific)`
                )
                pausedLogged = true
                return [errorEvent("QuotaExceeded", error.message, wait)]
              }
              const wait = backoffMillis(config, failures)
              nextAt = after + wait
              const reason =
                error._tag === "OAuthError"
                  ? "Unavailable"
                  : error.kind === "RateLimited"
                    ? "RateLimited"
                    : error.kind === "Timeout"
                      ? "Timeout"
                      : error.kind === "InvalidResponse"
                        ? "InvalidResponse"
                        : "Unavailable"
              yield* Effect.logWarning(`youtube ${sourceLabel} poll failed, retrying in ${wait} ms`).pipe(
                Effect.annotateLogs({ reason, attempt: failures, error: error.message })
              )
              return [errorEvent(reason, error.message, wait)]
            }
            failures = 0
            const { outcome, reversals, nextHeld, heldAtCheck } = result.success
            nextAt = after + (yield* budget.nextDelay(pollMillis, pollCost))
            const before = yield* checkpoint
            if (nextHeld !== undefined) {
              // Held comments acted on while the check ran stay as the moderator left them.
              const merged: Record<string, string> = {}
              for (const [id, at] of Object.entries(nextHeld)) if (id in held) merged[id] = at
              for (const [id, at] of Object.entries(held)) if (!(id in heldAtCheck)) merged[id] = at
              held = merged
            }
            state = { ...outcome.state, held }
            const afterCheckpoint = yield* checkpoint
            const items: Array<Omit<SourceEvent.Upsert, "checkpoint"> | Omit<SourceEvent.Reversal, "checkpoint">> = [
              ...outcome.events,
              ...reversals
            ]
            // A poll that found nothing hands over where the source stands: the daemon commits it, and its
            // checkpoint lag counts from the last successful poll (a quiet channel is not a stuck pipeline).
            if (items.length === 0) {
              const caughtUp: SourceEvent.Progress = { kind: "progress", checkpoint: afterCheckpoint }
              return [caughtUp] as ReadonlyArray<SourceEvent.SourceEvent>
            }
            const last = items.length - 1
            return items.map(
              (e, i): SourceEvent.SourceEvent =>
                ({ ...e, checkpoint: i === last ? afterCheckpoint : before }) as SourceEvent.SourceEvent
            )
          })

          if (once) return Stream.fromEffect(step).pipe(Stream.flatMap(Stream.fromIterable))
          return Stream.paginate(0, () => Effect.map(step, (es) => [es, Option.some(0)] as const))
        })
      )

    return { events: (from) => run(from, false), pollOnce: (from) => run(from, true), act: moderator.act }
  })

/** The connector definition, found by the registry as `connector` (type `youtube`). */
export const connector: Connector.Connector<YouTubeConfig.Config> = Connector.make({
  type: "youtube",
  configSchema: YouTubeConfig.Config,
  capabilities: {
    actions: [...Moderation.actionKinds],
    duplicates: "possible",
    contentTypes: ["text"]
  },
  make
})

/** A running YouTube source as a service, for programs that use the connector directly. */
export class YouTubeSource extends Context.Service<YouTubeSource, Source.Source>()(
  "@warden/connector-youtube/YouTubeSource"
) {}

/** Provides {@link YouTubeSource} from a config as a user writes it (durations as strings). */
export const layer = (options: YouTubeConfig.ConfigInput): Layer.Layer<YouTubeSource, ConnectorError.ConnectorError> =>
  Layer.effect(YouTubeSource, Effect.flatMap(Connector.decodeConfig(connector, options), make))

/**
 * Provides {@link YouTubeSource} from an Effect `Config`, e.g.
 * `Config.schema(YouTubeConfig.Config, "youtube")` read from the environment.
 */
export const layerConfig = (
  config: EffectConfig.Config<YouTubeConfig.Config>
): Layer.Layer<YouTubeSource, ConnectorError.ConnectorError | EffectConfig.ConfigError> =>
  Layer.effect(YouTubeSource, Effect.flatMap(config, make))
