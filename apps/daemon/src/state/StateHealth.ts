/**
 * Whether the state store takes writes, as its users found out: a batch that could not be recorded (its
 * cluster message not saved, its verdicts not written), a checkpoint not committed, a sink's
 * acknowledgement not stored. The store is down from the first such failure that is a problem of the
 * store itself (StateProblem: a full disk, an I/O error, a PostgreSQL server gone) until every operation
 * that failed has worked again (Outage.ts): one line when it starts, one when it ends.
 *
 * Meanwhile `/readyz` answers 503 with the problem (CheckpointStore.writable), and the work whose
 * outcome would be lost if it could not be recorded waits ({@link StateHealthShape.pausedFor}): a sink
 * delivery the outbox could not then forget would be delivered again at every retry (issue 35: 760 to
 * 1,520 duplicate jsonl lines while an SQLite disk was full).
 */
import { Backoff } from "@warden/connector"
import { Context, Duration, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Outage from "./Outage.ts"
import * as PendingWrites from "./PendingWrites.ts"
import * as StateProblem from "./StateProblem.ts"

/** The state store's health, as its users report it. */
export interface StateHealthShape {
  /** `state.sqlite` or `state.postgres`: the setting its problems are named by. */
  readonly setting: StateProblem.StateSetting
  /**
   * Reports how `effect`, an attempt at `operation` (`source feed`, `sink jsonl`), went: a failure that
   * is a problem of the store is that operation failing (the effect still fails as it did), a success
   * its recovery. Free on the success path while the store is up.
   */
  readonly observe: (operation: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * The store's problem in `failure` (a Cause or an error), reported as `operation` failing; `undefined`
   * (and nothing reported) when the failure is something else.
   */
  readonly report: (operation: string, failure: unknown) => Effect.Effect<Outage.Problem | undefined>
  /**
   * Runs `effect`, a write of `operation` whose outcome matters (a checkpoint, a sink's
   * acknowledgement), until it works while its failures are the store's problem: retried with
   * {@link retryBackoff}, reported as {@link observe} does. Any other failure fails at once.
   */
  readonly untilWritten: (operation: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Whether `failure` is the store's problem while its outage is reported (its start line out, its
   * end line not yet): that line already says it, so a loop's failed attempt need not.
   */
  readonly covers: (failure: unknown) => boolean
  /** Whether an outage of the store is reported (its start line out, its end line not yet). */
  readonly inOutage: () => boolean
  /** Whether `failure` is a problem of the store (a full disk, a lost server), known or not. */
  readonly isProblem: (failure: unknown) => boolean
  /** `operation` worked (see {@link observe}). */
  readonly recovered: (operation: string) => Effect.Effect<void>
  /** The problem the store is down with, or `undefined` when it takes writes. */
  readonly problem: () => Outage.Problem | undefined
  /** Whether `operation` is one of those failing. */
  readonly failing: (operation: string) => boolean
  /**
   * The outcomes of `operation` done but not recorded (PendingWrites.ts), the same list for the
   * process's life: a worker started again finds what the one before it could not record.
   */
  readonly pending: (operation: string) => PendingWrites.PendingWrites
  /** Waits until the store takes writes (at once when it does). */
  readonly writable: Effect.Effect<void>
  /**
   * Waits while the store is down for other operations than `operation`: a worker whose outcomes must
   * be recorded (a sink delivery, a platform action) does nothing it could not record. When its own
   * operation is among the failing ones it goes on: its next attempt is the probe that ends them.
   */
  readonly pausedFor: (operation: string) => Effect.Effect<void>
}

/** The store does not take writes: `message` is its problem's line (`/readyz` lists it). */
export class StateUnwritable extends Schema.TaggedError<StateUnwritable>()("StateUnwritable", {
  problem: Schema.String
}) {
  override get message(): string {
    return this.problem
  }
}

/**
 * The operation of a source's writes: its batches' cluster messages and verdicts (Pipeline, and the
 * entity's BatchProcessor, which replays a batch until its verdicts are recorded) and its checkpoints.
 */
export const sourceWrites = (source: string): string => `source ${source}`

/**
 * Backoff of a write retried while the store is down: 200 ms doubling up to 5 s, so work resumes within
 * ~5 s of the store's return however long it was gone, for one statement per retry meanwhile.
 */
export const retryBackoff: Backoff.Backoff = { initial: Duration.millis(200), max: Duration.seconds(5) }

/**
 * Logs `message` with `cause` as a warning, or as a debug line when the cause is a problem of the state
 * store (`health`, when there is one): that outage's one line says it already.
 */
export const warnUnlessOutage = (
  health: Pick<StateHealthShape, "isProblem"> | undefined,
  message: string,
  cause: unknown
): Effect.Effect<void> => (health?.isProblem(cause) === true ? Effect.logDebug : Effect.logWarning)(message, cause)

/** A health tracker of the store named by `setting`. */
export const make = (setting: StateProblem.StateSetting): StateHealthShape => {
  const outage = Outage.make({
    down: (problem) =>
      `${problem.text}; the state store does not take writes: batches and checkpoints are retried with backoff, sinks wait, /readyz answers 503`,
    up: (_, seconds, failures) =>
      `${setting}: the state store takes writes again, after ${seconds} s and ${failures} failed attempt${failures === 1 ? "" : "s"}`
  })
  const report = (operation: string, failure: unknown) =>
    Effect.suspend(() => {
      const problem = StateProblem.find(failure, setting)
      return problem === undefined ? Effect.succeed(undefined) : Effect.as(outage.failed(operation, problem), problem)
    })
  const observe =
    (operation: string) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.tapCause((cause) => report(operation, cause)),
        Effect.tap(() => outage.recovered(operation))
      )
  const untilWritten =
    (operation: string) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      observe(operation)(effect).pipe(
        Effect.retry({
          schedule: Backoff.schedule(retryBackoff),
          while: (error) => StateProblem.find(error, setting) !== undefined
        })
      )
  const pending = new Map<string, PendingWrites.PendingWrites>()
  return {
    setting,
    observe,
    report,
    pending: (operation) => {
      let writes = pending.get(operation)
      if (writes === undefined) {
        writes = PendingWrites.make({ untilWritten: untilWritten(operation), once: observe(operation) })
        pending.set(operation, writes)
      }
      return writes
    },
    covers: (failure) => outage.reported() && StateProblem.find(failure, setting) !== undefined,
    inOutage: outage.reported,
    isProblem: (failure) => StateProblem.find(failure, setting) !== undefined,
    untilWritten,
    recovered: outage.recovered,
    problem: outage.problem,
    failing: outage.failing,
    writable: outage.up,
    pausedFor: (operation) =>
      Effect.suspend(() => (outage.problem() !== undefined && !outage.failing(operation) ? outage.up : Effect.void))
  }
}

/** The state store's health. */
export class StateHealth extends Context.Service<StateHealth, StateHealthShape>()("@warden/daemon/StateHealth") {
  /** On the `SqlClient` in context: its dialect names the setting. */
  static readonly layer = Layer.effect(
    StateHealth,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return make(
        sql.onDialectOrElse({ sqlite: () => "state.sqlite" as const, orElse: () => "state.postgres" as const })
      )
    })
  )
}
