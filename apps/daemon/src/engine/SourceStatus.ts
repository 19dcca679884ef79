/**
 * What each source is doing right now, for `/readyz`, `/metrics` and the logs: running, paused by the
 * API (with the reason), the API unavailable, or waiting on its upstream; and when the API last gave
 * it a verdict or an answer without one.
 */
import { Clock, Context, Effect, Layer, Metric, Ref } from "effect"
import * as Metrics from "./Metrics.ts"

/**
 * The state of one source (docs/operations.md, "Source states"):
 * - `starting`, `running`: reading its stream;
 * - `paused`: waiting for an operator. `by: "api"`: the API refused the key or a permission (retried
 *   every `pauseRetry`); `by: "source"`: the connector failed with a non-retryable error
 *   (`Unauthorized`, `InvalidCheckpoint`): not restarted until the daemon restarts or the checkpoint is reset;
 * - `api-unavailable`: the API does not answer, batches are retried;
 * - `upstream-error`: the connector reported an error event and retries by itself;
 * - `restarting`: the stream failed (a retryable error or a defect), restarted after a backoff;
 * - `finished`: the stream ended (a finite source read to its end); not restarted.
 */
export interface State {
  readonly state: "starting" | "running" | "paused" | "api-unavailable" | "upstream-error" | "restarting" | "finished"
  readonly reason?: string
  /** Who paused a `paused` source: the API (credentials, permission) or the source's connector. */
  readonly by?: "api" | "source"
  /** `restarting`: restarts since the source last committed a checkpoint. */
  readonly attempt?: number
  readonly since: number
  /** When the source last committed a checkpoint. */
  readonly lastCommit?: number
  /** When the source last reported an upstream error (a feed down, a rejected payload). */
  readonly lastErrorAt?: number
}

/** Answers of the API that held no verdict for a source's items, since the process started. */
export interface UnrecognisedAnswers {
  readonly count: number
  readonly lastAt: number
  /** The shape of the last one (`{foo}`) and its endpoint. */
  readonly lastShape: string
  readonly endpoint: string
}

/** How long an upstream error is listed by `/readyz` when nothing newer says otherwise. */
export const UPSTREAM_ERROR_WINDOW_MILLIS = 120_000

/** The live state of every source. */
export interface SourceStatusShape {
  /** Moves a source to `next` (`since` kept while the state stays the same). */
  readonly set: (source: string, next: Omit<State, "since" | "lastCommit">) => Effect.Effect<void>
  /** The source committed a checkpoint just now. */
  readonly committed: (source: string) => Effect.Effect<void>
  /** Every source's state, by id. */
  readonly all: Effect.Effect<ReadonlyMap<string, State>>
  /** Counts an answer without a verdict; `true` the first time this source saw this shape (log it then). */
  readonly answerUnrecognised: (source: string, endpoint: string, shape: string) => Effect.Effect<boolean>
  /** The answers without a verdict, per source. */
  readonly unrecognised: Effect.Effect<ReadonlyMap<string, UnrecognisedAnswers>>
  /** The API gave this source a verdict just now. */
  readonly answered: (source: string) => Effect.Effect<void>
  /** When each source last got a verdict from the API. */
  readonly lastVerdicts: Effect.Effect<ReadonlyMap<string, number>>
}

const make = Effect.gen(function* () {
  const states = yield* Ref.make(new Map<string, State>())
  const set = (source: string, next: Omit<State, "since" | "lastCommit">) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      yield* Ref.update(states, (m) => {
        const prev = m.get(source)
        const lastErrorAt = next.state === "upstream-error" ? now : prev?.lastErrorAt
        if (prev?.state === next.state && prev.reason === next.reason && lastErrorAt === prev.lastErrorAt) return m
        const copy = new Map(m)
        copy.set(source, {
          ...next,
          since: prev?.state === next.state ? prev.since : now,
          ...(prev?.lastCommit === undefined ? {} : { lastCommit: prev.lastCommit }),
          ...(lastErrorAt === undefined ? {} : { lastErrorAt })
        })
        return copy
      })
      yield* Metric.update(Metric.withAttributes(Metrics.sourcePaused, { source }), next.state === "paused" ? 1 : 0)
    })
  const committed = (source: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.update(states, (m) => {
        const copy = new Map(m)
        copy.set(source, { ...(m.get(source) ?? { state: "running", since: now }), lastCommit: now })
        return copy
      })
    )
  const unrecognised = yield* Ref.make(new Map<string, UnrecognisedAnswers>())
  /** Shapes already logged, per source and endpoint: an unreadable answer is logged once per kind. */
  const logged = new Set<string>()
  /** Counts an answer without a verdict; `true` the first time this source saw this shape (log it then). */
  const answerUnrecognised = (source: string, endpoint: string, shape: string): Effect.Effect<boolean> =>
    Effect.andThen(
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(unrecognised, (m) =>
          new Map(m).set(source, {
            count: (m.get(source)?.count ?? 0) + 1,
            lastAt: now,
            lastShape: shape,
            endpoint
          })
        )
      ),
      Effect.sync(() => {
        const key = `${source}\u0000${endpoint}\u0000${shape}`
        if (logged.has(key)) return false
        logged.add(key)
        return true
      })
    )
  const verdicts = yield* Ref.make(new Map<string, number>())
  /** The API gave this source a verdict just now. */
  const answered = (source: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.update(verdicts, (m) => new Map(m).set(source, now)))
  return SourceStatus.of({
    set,
    committed,
    all: Ref.get(states),
    answerUnrecognised,
    unrecognised: Ref.get(unrecognised),
    answered,
    lastVerdicts: Ref.get(verdicts)
  })
})

/** The live state of every source. */
export class SourceStatus extends Context.Service<SourceStatus, SourceStatusShape>()("@warden/daemon/SourceStatus") {
  static readonly layer = Layer.effect(SourceStatus, make)
}
