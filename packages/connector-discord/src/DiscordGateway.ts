/**
 * The gateway side of Discord, wrapped in Effect: a scoped `@discordjs/ws` `WebSocketManager` (one
 * shard) that connects on acquire and is destroyed on release. What it reports (dispatches, READY /
 * RESUMED, closes, socket errors, failed connects) is offered, in order, to a queue that the source
 * reads as a `Stream`.
 *
 * Session resume: the manager asks `retrieveSessionInfo` before each connect; the source seeds it from
 * its checkpoint, so a restarted source RESUMEs the session of the previous run when Discord still
 * allows it (Discord then replays what was dispatched meanwhile). On release the socket is closed
 * with code 4200 (not 1000), which keeps the session resumable.
 *
 * Proxy: with `HTTPS_PROXY`/`HTTP_PROXY` set (and the gateway not in `NO_PROXY`) the sockets go through
 * the proxy as the REST calls do, by way of a loopback bridge (`GatewayProxy`); the session kept in the
 * checkpoint holds the real resume address.
 *
 * @since 0.1.0
 */
import { WebSocketManager, WebSocketShardEvents, type SessionInfo } from "@discordjs/ws"
import type { REST } from "@discordjs/rest"
import { Backoff } from "@warden/connector"
import { Duration, Effect, Queue, Redacted, type Scope } from "effect"
import { DiscordAPIError } from "@discordjs/rest"
import * as GatewayProxy from "./GatewayProxy.ts"

/** What the gateway reports, in the order it happened. */
export type Signal =
  /** A DISPATCH (op 0) with its sequence number; includes READY and RESUMED. */
  | { readonly _tag: "Dispatch"; readonly t: string; readonly s: number; readonly d: unknown }
  /** The socket closed with this code (the manager reconnects or resumes by itself unless fatal). */
  | { readonly _tag: "Closed"; readonly code: number }
  /** A socket / network error; the manager retries. */
  | { readonly _tag: "SocketError"; readonly message: string }
  /** `connect()` failed (e.g. `GET /gateway/bot` failed); retried after `retryInMillis` unless `fatal`. */
  | {
      readonly _tag: "ConnectFailed"
      readonly message: string
      readonly status: number | undefined
      readonly retryInMillis: number
    }

/** Privileged and plain intents used by the connector. */
export const Intents = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  MessageContent: 1 << 15
} as const

/** Close codes after which reconnecting cannot help (bad token, intents, sharding, API version). */
export const fatalCloseCodes: ReadonlySet<number> = new Set([4004, 4010, 4011, 4012, 4013, 4014])

/** Options of the gateway. */
export interface Options {
  readonly rest: REST
  readonly token: Redacted.Redacted<string>
  readonly intents: number
  /** The session to resume, from the checkpoint. */
  readonly session: SessionInfo | null
  /** Backoff of failed connects: `initial` doubling up to `max`. */
  readonly retry: { readonly initial: Duration.Duration; readonly max: Duration.Duration }
}

/** A connected (or connecting) gateway. */
export interface Gateway {
  readonly signals: Queue.Dequeue<Signal>
  /** The session as the manager knows it now (null before READY or after an invalid session). */
  readonly session: () => SessionInfo | null
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Acquires the manager in the scope and starts connecting in the background (retrying failed connects
 * with backoff). Releasing destroys every shard (sockets, heartbeat timers).
 */
export const make = (options: Options): Effect.Effect<Gateway, never, Scope.Scope> =>
  Effect.gen(function* () {
    const signals = yield* Queue.unbounded<Signal>()
    let session: SessionInfo | null = options.session
    let stopped = false
    let fatal = false
    const offer = (signal: Signal) => {
      if (!stopped) Queue.offerUnsafe(signals, signal)
    }
    const bridge = GatewayProxy.make()
    const manager = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const manager = new WebSocketManager({
          rest: options.rest,
          token: Redacted.value(options.token),
          intents: options.intents,
          shardCount: 1,
          shardIds: [0],
          helloTimeout: 30_000,
          readyTimeout: 30_000,
          // After release, a shard still waiting to reconnect (the manager sleeps 500 ms first) would open
          // a new socket once destroyed: it asks for the session first, and never gets an answer.
          retrieveSessionInfo: async () => {
            if (stopped) return new Promise<never>(() => undefined)
            return session === null ? null : { ...session, resumeURL: await bridge.wrap(session.resumeURL) }
          },
          updateSessionInfo: (_shardId, info) => {
            session = info === null ? null : { ...info, resumeURL: bridge.unwrap(info.resumeURL) }
          }
        })
        // The gateway address from `GET /gateway/bot`, through the proxy's bridge when one applies.
        const fetchGatewayInformation = manager.fetchGatewayInformation.bind(manager)
        manager.fetchGatewayInformation = async (force?: boolean) => {
          const info = await fetchGatewayInformation(force)
          return { ...info, url: await bridge.wrap(info.url) }
        }
        manager.on(WebSocketShardEvents.Dispatch, (payload) =>
          offer({ _tag: "Dispatch", t: payload.t, s: payload.s, d: payload.d })
        )
        manager.on(WebSocketShardEvents.Closed, (code) => {
          if (fatalCloseCodes.has(code)) fatal = true
          offer({ _tag: "Closed", code })
        })
        manager.on(WebSocketShardEvents.SocketError, (error) =>
          offer({ _tag: "SocketError", message: describe(error) })
        )
        // Errors of the manager (e.g. "Authentication failed") come with a close code, reported above.
        manager.on(WebSocketShardEvents.Error, () => undefined)
        return manager
      }),
      (manager) =>
        Effect.promise(async () => {
          stopped = true
          // 4200: not a normal close, so Discord keeps the session resumable for the next run.
          await Promise.resolve(manager.destroy({ code: 4200, reason: "Warden source stopped" })).catch(() => undefined)
          manager.removeAllListeners()
          await bridge.close()
        })
    )
    // A span per connect attempt: `GET /gateway/bot`, then HELLO and IDENTIFY (or RESUME of the session
    // kept) until READY (or RESUMED). Reconnects the manager makes by itself after a close are not spans:
    // they happen inside `@discordjs/ws`, outside any Effect.
    const connectOnce = Effect.fn("DiscordGateway.connect")(function* (attempt: number) {
      yield* Effect.annotateCurrentSpan({
        "discord.gateway.attempt": attempt,
        "discord.gateway.resume": session !== null
      })
      return yield* Effect.tryPromise({ try: () => manager.connect(), catch: (error) => error })
    })
    const connect = (attempt: number): Effect.Effect<void> =>
      connectOnce(attempt).pipe(
        Effect.catch((error) =>
          Effect.gen(function* () {
            if (stopped || fatal) return
            const status = error instanceof DiscordAPIError ? error.status : undefined
            const wait = Backoff.delayMillis(options.retry, attempt + 1)
            offer({
              _tag: "ConnectFailed",
              message: `connecting to the Discord gateway failed: ${describe(error)}`,
              status:
                status ??
                (typeof (error as { status?: unknown }).status === "number"
                  ? (error as { status: number }).status
                  : undefined),
              retryInMillis: wait
            })
            if (status === 401 || status === 403) return
            yield* Effect.sleep(Duration.millis(wait))
            yield* connect(attempt + 1)
          })
        )
      )
    yield* Effect.forkScoped(connect(0))
    return { signals, session: () => session }
  })
