/**
 * The sandbox as a library: start it in-process on a free port, get its URL, inspect it and make it
 * misbehave programmatically. `Sandbox.layer(options)` provides the `Sandbox` service for a scope
 * (tests, the daemon's demo); `Sandbox.start(options)` is the scoped effect behind it;
 * `Sandbox.startPromise(options)` is the same for code outside Effect (plain vitest, scripts).
 *
 * @example
 * ```ts
 * import { Sandbox } from "@warden/sandbox"
 * const program = Effect.gen(function* () {
 *   const sandbox = yield* Sandbox.Sandbox
 *   yield* sandbox.setFaults({ transient: 0.2, seed: 42 })
 *   const res = yield* Effect.promise(() => fetch(`${sandbox.url}/analyze/v1/text`, { ... }))
 * }).pipe(Effect.provide(Sandbox.layer()))
 * ```
 */
import { type EndpointName, PATHS as PATHS_BY_NAME } from "@warden/core"
import { Context, Effect, Layer, Schema, type Scope } from "effect"
import type { FaultProfile } from "./Faults.ts"
import type { StoredFeedback } from "./FeedbackStore.ts"
import type { LegacyRecord } from "./LegacyStore.ts"
import type { QuotaConfig } from "./Quotas.ts"
import type { LoggedRequest, Stats } from "./RequestLog.ts"
import type { SandboxOptions } from "./SandboxConfig.ts"
import { SandboxServer } from "./Server.ts"

/** The sandbox could not start (e.g. the port is taken). */
export class SandboxStartError extends Schema.TaggedError<SandboxStartError>()("SandboxStartError", {
  port: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `the sandbox could not listen on port ${this.port}: ${this.reason}`
  }
}

/** A running sandbox. */
export interface SandboxShape {
  /** Base URL, e.g. `http://127.0.0.1:54321`: both the v1 base URL and the legacy base URL. */
  readonly url: string
  /** The port listened on. */
  readonly port: number
  /** Full URL of an endpoint (`sandbox.endpoint("analyzeText")`). */
  readonly endpoint: (name: EndpointName) => string
  /** Replaces the fault profile (as `PUT /_sandbox/faults`). */
  readonly setFaults: (profile: FaultProfile) => Effect.Effect<void>
  /** Replaces the quotas (as `PUT /_sandbox/quotas`). */
  readonly setQuotas: (quotas: QuotaConfig) => Effect.Effect<void>
  /** Back to the state at start (as `POST /_sandbox/reset`). */
  readonly reset: Effect.Effect<void>
  /** Requests received, oldest first, keys redacted. */
  readonly requests: Effect.Effect<ReadonlyArray<LoggedRequest>>
  /** Feedback recorded, with each raw body as received. */
  readonly feedback: Effect.Effect<ReadonlyArray<StoredFeedback>>
  /** Legacy records (all, or of one channel). */
  readonly legacyRecords: (channelUuid?: string) => Effect.Effect<ReadonlyArray<LegacyRecord>>
  /** Answers per endpoint and status. */
  readonly stats: Effect.Effect<Stats>
  /** The server underneath (synchronous access to the same state). */
  readonly server: SandboxServer
}

/** The running sandbox as a service. */
export class Sandbox extends Context.Service<Sandbox, SandboxShape>()("@warden/sandbox/Sandbox") {
  /** Starts a sandbox for the layer's lifetime. */
  static readonly layer = (options: SandboxOptions = {}): Layer.Layer<Sandbox, SandboxStartError> =>
    Layer.effect(Sandbox, start(options))
}

const shapeOf = (server: SandboxServer): SandboxShape => {
  const engine = server.engine
  const url = server.url
  return {
    url,
    port: server.port,
    endpoint: (name) => `${url}${PATHS_BY_NAME[name]}`,
    setFaults: (profile) => Effect.sync(() => engine.setFaults(profile)),
    setQuotas: (quotas) => Effect.sync(() => engine.setQuotas(quotas)),
    reset: Effect.sync(() => engine.reset()),
    requests: Effect.sync(() => engine.log.list()),
    feedback: Effect.sync(() => [...engine.feedback.list()]),
    legacyRecords: (channelUuid) => Effect.sync(() => engine.legacy.list(channelUuid)),
    stats: Effect.sync(() => engine.log.stats()),
    server
  }
}

/** Starts a sandbox in this process, stopped when the scope closes. */
export const start = (options: SandboxOptions = {}): Effect.Effect<SandboxShape, SandboxStartError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const server = new SandboxServer(options)
        await server.listen()
        return server
      },
      catch: (e) => new SandboxStartError({ port: options.port ?? 0, reason: String((e as Error)?.message ?? e) })
    }),
    (server) => Effect.promise(() => server.close())
  ).pipe(Effect.map(shapeOf))

/** A running sandbox outside Effect: the same handle plus `close()`. */
export interface RunningSandbox extends SandboxShape {
  readonly close: () => Promise<void>
}

/** Starts a sandbox outside Effect (plain tests, scripts); call `close()` when done. */
export const startPromise = async (options: SandboxOptions = {}): Promise<RunningSandbox> => {
  const server = new SandboxServer(options)
  await server.listen()
  return { ...shapeOf(server), close: () => server.close() }
}

/** Starts a sandbox for the layer's lifetime (same as `Sandbox.layer` on the service class). */
export const layer = (options: SandboxOptions = {}): Layer.Layer<Sandbox, SandboxStartError> => Sandbox.layer(options)
