/**
 * One daemon per SQLite state file. SQLite is the single-process default: two `warden run` on one file
 * (a systemd unit and a manual run, two containers on one volume) would each read every source and
 * analyse, act and deliver everything twice. So the daemon records itself in `warden_owner` (pid,
 * host, a heartbeat every 2 s) and a second one refuses to start, naming the first. The row of a
 * daemon that is gone is taken over: its heartbeat older than 10 s, or its pid dead on this host, so
 * a restart after kill -9 starts at once. Should two start at the same moment, the one whose row was
 * overwritten sees it at its next heartbeat and stops.
 *
 * PostgreSQL runs several daemons as one cluster (ClusterRunner) and needs none of this.
 */
import { hostname } from "node:os"
import { Cause, Clock, Context, Data, Deferred, Effect, Layer, Option, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "./internal/Rows.ts"
import * as RepeatedWarnings from "./RepeatedWarnings.ts"
import { StateHealth } from "./StateHealth.ts"

/** Another daemon uses this state file. */
export class StateInUse extends Data.TaggedError("StateInUse")<{
  readonly message: string
}> {}

/** How often the owner writes its heartbeat. */
export const heartbeatMillis = 2_000

/** A heartbeat older than this is a daemon that is gone. */
export const staleMillis = 10_000

const Owner = Schema.Struct({ pid: Rows.Int, host: Schema.String, seen_at: Rows.Int })
const decodeOwner = Rows.decode("warden_owner", Owner)

/** Whether process `pid` exists on this host (EPERM: it does, under another user). */
const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as { code?: string }).code === "EPERM"
  }
}

/** The state file's owner: this process while the layer is alive. */
export class StateOwner extends Context.Service<
  StateOwner,
  {
    /** Fails once another daemon has taken the file over (the daemon must stop); never succeeds. */
    readonly lost: Effect.Effect<never, StateInUse>
  }
>()("@warden/daemon/StateOwner") {
  /** Holds the SQLite state file (`file`, for the messages) on the migrated `SqlClient` in context. */
  static readonly layer = (file: string) =>
    Layer.effect(
      StateOwner,
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // Every 2 s while the disk refuses writes: nothing when it is the store's problem (the daemon's
        // own writes report it, StateHealth; the CLI's commands run no heartbeat), else a line a minute.
        const health = Option.getOrUndefined(yield* Effect.serviceOption(StateHealth))
        const warnings = RepeatedWarnings.make()
        const me = { pid: process.pid, host: hostname() }
        const ours = sql`pid = ${me.pid} AND host = ${me.host}`
        const owner = Effect.map(
          Effect.flatMap(sql`SELECT pid, host, seen_at FROM warden_owner WHERE id = 1`, decodeOwner),
          (rows) => rows[0]
        )
        const claim = (now: number) =>
          sql`INSERT INTO warden_owner (id, pid, host, started_at, seen_at)
            VALUES (1, ${me.pid}, ${me.host}, ${now}, ${now})
            ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host,
              started_at = excluded.started_at, seen_at = excluded.seen_at`

        yield* sql.withTransaction(
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const other = yield* owner
            if (other !== undefined && !(other.pid === me.pid && other.host === me.host)) {
              const fresh = now - other.seen_at < staleMillis
              const gone = other.host === me.host && !pidAlive(other.pid)
              if (fresh && !gone) {
                return yield* new StateInUse({
                  message: `another warden daemon uses ${file} (pid ${other.pid} on ${other.host}, seen ${((now - other.seen_at) / 1000).toFixed(1)} s ago): stop it, or give this one its own state.sqlite (several daemons share work on state.postgres)`
                })
              }
            }
            yield* claim(now)
          })
        )

        const lost = Deferred.makeUnsafe<never, StateInUse>()
        const heartbeat = Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const updated = yield* sql<{ one: number }>`UPDATE warden_owner SET seen_at = ${now}
            WHERE id = 1 AND ${ours} RETURNING 1 AS one`
          if (updated.length > 0) return
          const other = yield* owner
          // No row: removed by hand, or by another daemon of this process stopping: ours again.
          if (other === undefined) return yield* claim(now)
          yield* Deferred.fail(
            lost,
            new StateInUse({
              message: `another warden daemon (pid ${other.pid} on ${other.host}) took ${file} over: two started at once, or this one's heartbeat stopped for ${staleMillis / 1000} s; stopping`
            })
          )
        }).pipe(
          Effect.catchTag("SqlError", (e) =>
            health?.isProblem(e) === true
              ? Effect.void
              : warnings.log("heartbeat", "Warn", "state owner heartbeat failed", Cause.fail(e))
          )
        )
        yield* heartbeat.pipe(Effect.repeat(Schedule.spaced(heartbeatMillis)), Effect.forkScoped)

        yield* Effect.addFinalizer(() =>
          sql`DELETE FROM warden_owner WHERE id = 1 AND ${ours}`.pipe(
            Effect.catchCause((cause) => Effect.logWarning("state owner row not removed at stop", cause))
          )
        )
        return { lost: Deferred.await(lost) }
      })
    )

  /** No owner to hold (PostgreSQL: several daemons are one cluster). */
  static readonly layerNone = Layer.succeed(StateOwner, { lost: Effect.never })
}
