/**
 * One daemon per SQLite state file (StateOwner): a second `warden run` on the same file refuses to
 * start, naming the first; a daemon killed with -9 is restarted at once; a row left by a daemon of
 * another host counts until its heartbeat is 10 s old.
 */
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { assert, it } from "@effect/vitest"
import { Clock, Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { afterEach, describe, expect } from "vitest"
import { sqlLayer } from "../src/state/StateSql.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { heartbeatMillis, StateOwner, staleMillis } from "../src/state/StateOwner.ts"
import { freePort, startDaemon, type DaemonProcess, waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { adjustTo, atWallTime, eventually } from "./support/TestTime.ts"

const running: Array<DaemonProcess> = []
afterEach(async () => {
  for (const d of running.splice(0)) {
    if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill("SIGKILL")
    await d.exited
  }
})

/** A daemon config on `dir`'s state file, one feed that is never reached, its own admin port. */
const daemonConfig = async (dir: string) =>
  writeConfig(mkdtempSync(join(tmpdir(), "warden-owner-cfg-")), {
    api: { apiKey: "k", baseUrl: "http://127.0.0.1:9" },
    state: { sqlite: join(dir, "state.db") },
    sources: [
      {
        id: "feed",
        type: "rss",
        channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
        config: { feeds: ["http://127.0.0.1:9/feed.xml"], pollInterval: "5m" }
      }
    ],
    admin: { listen: `127.0.0.1:${await freePort()}`, token: "owner-test-token" },
    log: { format: "json" }
  })

const start = (config: string) => {
  const daemon = startDaemon(config)
  running.push(daemon)
  return daemon
}
const started = (daemon: DaemonProcess) =>
  waitFor(() => daemon.stderr().includes("warden running"), 60_000, `the daemon to start\n${daemon.stderr()}`)

describe("one daemon per SQLite state file", () => {
  it("a second warden run on the same file exits 1 naming the first; after kill -9 of the first a restart starts at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-owner-"))
    const first = start(await daemonConfig(dir))
    await started(first)

    const second = start(await daemonConfig(dir))
    const exit = await second.exited
    expect(exit.code).toBe(1)
    expect(second.stderr()).toContain(
      `state.sqlite: another warden daemon uses ${join(dir, "state.db")} (pid ${first.child.pid} on ${hostname()}`
    )
    expect(second.stderr()).not.toContain("warden running")
    expect(first.child.exitCode).toBeNull()

    // Its heartbeat is fresh, but its pid is gone from this host: taken over without waiting.
    first.child.kill("SIGKILL")
    await first.exited
    const restarted = start(await daemonConfig(dir))
    const at = Date.now()
    await started(restarted)
    expect(Date.now() - at).toBeLessThan(staleMillis + 20_000)
    expect(restarted.stderr()).not.toContain("another warden daemon")
    // A clean stop gives the file back: the next one starts too.
    expect((await restarted.stop()).code).toBe(0)
    const next = start(await daemonConfig(dir))
    await started(next)
  }, 180_000)

  describe("the owner row", () => {
    /** A fresh migrated state file, its `SqlClient` in context, for the test's scope. */
    const onFreshFile = <A, E>(test: (filename: string) => Effect.Effect<A, E, SqlClient.SqlClient | Scope.Scope>) => {
      const filename = join(mkdtempSync(join(tmpdir(), "warden-owner-row-")), "state.db")
      return test(filename).pipe(
        Effect.provide(StateStore.layer.pipe(Layer.provideMerge(sqlLayer({ _tag: "sqlite", filename })))),
        Effect.scoped
      )
    }
    /** Builds StateOwner on a fresh migrated file after `before` ran on it; returns the exit and the row. */
    const claim = (before: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
      onFreshFile((filename) =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* before(sql)
          const scope = yield* Scope.make()
          const exit = yield* Effect.exit(Layer.buildWithScope(StateOwner.layer(filename), scope))
          const held = yield* sql<{ pid: number; host: string }>`SELECT pid, host FROM warden_owner`
          yield* Scope.close(scope, Exit.void)
          const after = yield* sql<{ pid: number }>`SELECT pid FROM warden_owner`
          return { exit, held, after }
        })
      )
    const otherHost = (seenAgo: number) => (sql: SqlClient.SqlClient) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => sql`INSERT INTO warden_owner (id, pid, host, started_at, seen_at)
        VALUES (1, 4242, 'elsewhere', ${now - seenAgo}, ${now - seenAgo})`
      )

    it.effect("is claimed on an empty file and removed when the daemon stops", () =>
      Effect.gen(function* () {
        const r = yield* claim(() => Effect.void)
        assert.isTrue(Exit.isSuccess(r.exit))
        assert.deepStrictEqual(r.held, [{ pid: process.pid, host: hostname() }])
        assert.deepStrictEqual(r.after, [])
      })
    )

    it.effect("of another host with a fresh heartbeat refuses the start", () =>
      Effect.gen(function* () {
        const r = yield* claim(otherHost(1_000))
        assert.isTrue(Exit.isFailure(r.exit))
        assert.match(
          String(Exit.isFailure(r.exit) ? r.exit.cause : ""),
          /another warden daemon uses .*state\.db \(pid 4242 on elsewhere, seen 1\.\d s ago\)/
        )
        assert.deepStrictEqual(r.held, [{ pid: 4242, host: "elsewhere" }])
      })
    )

    it.effect("of another host whose heartbeat is older than 10 s is taken over", () =>
      Effect.gen(function* () {
        const r = yield* claim(otherHost(staleMillis + 1_000))
        assert.isTrue(Exit.isSuccess(r.exit))
        assert.deepStrictEqual(r.held, [{ pid: process.pid, host: hostname() }])
      })
    )

    it.effect("of this host whose process is gone is taken over at once", () =>
      Effect.gen(function* () {
        const gone = spawn(process.execPath, ["-e", ""])
        yield* Effect.promise(() => new Promise((resolve) => gone.once("exit", resolve)))
        const r = yield* claim((sql) =>
          Effect.flatMap(
            Clock.currentTimeMillis,
            (now) => sql`INSERT INTO warden_owner (id, pid, host, started_at, seen_at)
            VALUES (1, ${gone.pid!}, ${hostname()}, ${now}, ${now})`
          )
        )
        assert.isTrue(Exit.isSuccess(r.exit))
        assert.deepStrictEqual(r.held, [{ pid: process.pid, host: hostname() }])
      })
    )

    it.effect(
      "is refreshed every 2 s; taken over by another daemon, the owner sees it at its next heartbeat and stops",
      () =>
        onFreshFile((filename) =>
          Effect.gen(function* () {
            yield* atWallTime
            const sql = yield* SqlClient.SqlClient
            const start = yield* Clock.currentTimeMillis
            const owner = yield* Layer.build(StateOwner.layer(filename))
            const lost = yield* Effect.forkScoped(Effect.flip(Context.get(owner, StateOwner).lost))
            const seenAt = Effect.map(sql<{ seen_at: number }>`SELECT seen_at FROM warden_owner`, (rows) =>
              Number(rows[0]?.seen_at)
            )
            yield* adjustTo(start + heartbeatMillis)
            assert.strictEqual(yield* seenAt, start + heartbeatMillis)
            // Another daemon (two started at once) overwrites the row just after that heartbeat.
            yield* sql`UPDATE warden_owner SET pid = 4242, host = 'elsewhere', seen_at = ${yield* Clock.currentTimeMillis}`
            yield* adjustTo(start + 2 * heartbeatMillis - 1)
            assert.isUndefined(lost.pollUnsafe())
            yield* adjustTo(start + 2 * heartbeatMillis)
            yield* eventually(
              Effect.sync(() => lost.pollUnsafe() !== undefined),
              "the owner to see the takeover"
            )
            const error = yield* Fiber.join(lost)
            assert.match(error.message, /another warden daemon \(pid 4242 on elsewhere\) took .*state\.db over/)
          })
        )
    )
  })
})
