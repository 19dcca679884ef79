/**
 * The embedded SQLite client (our own over `node:sqlite`, no patched driver): what the state store and
 * effect/cluster's SQL storage rely on, against a real database file.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as SqliteClient from "../src/state/SqliteClient.ts"
import { wrapDatasync } from "./support/Datasync.ts"

/**
 * A process that takes an exclusive lock on the database file `argv[1]`, says "held", and lets it go
 * after `argv[2]` ms.
 */
const holdFile = `
const { DatabaseSync } = require("node:sqlite")
const [file, ms] = process.argv.slice(1)
const db = new DatabaseSync(file)
db.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; CREATE TABLE held (x)")
process.stdout.write("held")
setTimeout(() => { db.exec("COMMIT"); db.close() }, Number(ms))
`

const fileLayer = () => SqliteClient.layer({ filename: join(mkdtempSync(join(tmpdir(), "warden-sqlite-")), "s.db") })

const withTable = <A, E>(body: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, n BIGINT)`
    return yield* body(sql)
  }).pipe(Effect.provide(fileLayer()))

/**
 * Watches `FileHandle.datasync` (the real one runs) for the rest of the scope: answers the base names of
 * the files whose sync started, and how many syncs had ended.
 */
const watchedDatasync = Effect.gen(function* () {
  const started: Array<string> = []
  let ended = 0
  yield* wrapDatasync(
    (original) =>
      async function () {
        started.push(basename(readlinkSync(`/proc/self/fd/${this.fd}`)))
        await original.call(this)
        ended++
      }
  )
  return () => ({ started: [...started], ended })
})

describe("embedded SQLite client", () => {
  it.live("multi-row sql.insert, sql.in and RETURNING rows round-trip", () =>
    withTable((sql) =>
      Effect.gen(function* () {
        const inserted = yield* sql<{ id: number }>`INSERT INTO notes ${sql.insert([
          { id: 1, body: "a", n: 1 },
          { id: 2, body: "b", n: 2 },
          { id: 3, body: "c", n: 3 }
        ])} RETURNING id`
        assert.deepStrictEqual(
          inserted.map((r) => r.id),
          [1, 2, 3]
        )
        const rows = yield* sql<{ body: string }>`SELECT body FROM notes WHERE ${sql.in("id", [1, 3])} ORDER BY id`
        assert.deepStrictEqual(
          rows.map((r) => r.body),
          ["a", "c"]
        )
        const values = yield* sql`SELECT id, body FROM notes WHERE id = ${2}`.values
        assert.deepStrictEqual(values, [[2, "b"]])
        const unprepared = yield* sql`SELECT COUNT(*) AS c FROM notes`.unprepared
        assert.deepStrictEqual(unprepared, [{ c: 3 }])
      })
    )
  )

  it.live("a failed transaction rolls back; a nested one rolls back to its savepoint only", () =>
    withTable((sql) =>
      Effect.gen(function* () {
        const failed = yield* sql
          .withTransaction(
            Effect.andThen(sql`INSERT INTO notes (id, body) VALUES (1, 'lost')`, Effect.fail("boom" as const))
          )
          .pipe(Effect.flip)
        assert.strictEqual(failed, "boom")
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO notes (id, body) VALUES (2, 'kept')`
            yield* sql
              .withTransaction(
                Effect.andThen(sql`INSERT INTO notes (id, body) VALUES (3, 'inner')`, Effect.fail("inner"))
              )
              .pipe(Effect.ignore)
          })
        )
        const rows = yield* sql<{ id: number }>`SELECT id FROM notes ORDER BY id`
        assert.deepStrictEqual(
          rows.map((r) => r.id),
          [2]
        )
      })
    )
  )

  it.live("a constraint violation is a typed SqlError, and the connection stays usable", () =>
    withTable((sql) =>
      Effect.gen(function* () {
        yield* sql`CREATE UNIQUE INDEX notes_body ON notes (body)`
        yield* sql`INSERT INTO notes (id, body) VALUES (1, 'a')`
        const error = yield* sql`INSERT INTO notes (id, body) VALUES (2, 'a')`.pipe(Effect.flip)
        assert.strictEqual(error._tag, "SqlError")
        assert.strictEqual(error.reason._tag, "UniqueViolation")
        const rows = yield* sql<{ c: number }>`SELECT COUNT(*) AS c FROM notes`
        assert.strictEqual(rows[0]!.c, 1)
      })
    )
  )

  it.live(
    "concurrent transactions are serialised on the one connection (no 'cannot start a transaction within a transaction')",
    () =>
      withTable((sql) =>
        Effect.gen(function* () {
          yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) =>
              sql.withTransaction(
                Effect.gen(function* () {
                  yield* sql`INSERT INTO notes (id, body) VALUES (${i}, 'x')`
                  yield* Effect.yieldNow
                  yield* sql`UPDATE notes SET n = ${i * 2} WHERE id = ${i}`
                })
              ),
            { concurrency: "unbounded" }
          )
          const rows = yield* sql<{ c: number; s: number }>`SELECT COUNT(*) AS c, SUM(n) AS s FROM notes`
          assert.deepStrictEqual(rows[0], { c: 20, s: 380 })
        })
      )
  )

  it.live("onDialectOrElse takes the sqlite branch; SafeIntegers reads BIGINT as bigint", () =>
    withTable((sql) =>
      Effect.gen(function* () {
        assert.strictEqual(sql.onDialectOrElse({ sqlite: () => "sqlite", orElse: () => "other" }), "sqlite")
        yield* sql`INSERT INTO notes (id, body, n) VALUES (1, 'a', ${9007199254740993n})`
        const rows = yield* sql<{ n: bigint }>`SELECT n FROM notes`.pipe(
          Effect.provideService(SqlClient.SafeIntegers, true)
        )
        assert.strictEqual(rows[0]!.n, 9007199254740993n)
      })
    )
  )

  it.live("the file is closed with the layer's scope and its data is there on reopen", () =>
    Effect.gen(function* () {
      const filename = join(mkdtempSync(join(tmpdir(), "warden-sqlite-")), "s.db")
      const layer = SqliteClient.layer({ filename })
      yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE t (v TEXT)`
        yield* sql`INSERT INTO t ${sql.insert({ v: "persisted" })}`
      }).pipe(Effect.provide(layer))
      const rows = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ v: string }>`SELECT v FROM t`
      }).pipe(Effect.provide(Layer.fresh(layer)))
      assert.deepStrictEqual(rows, [{ v: "persisted" }])
    })
  )

  it.live("opening waits for another process's lock on the file instead of failing at once", () =>
    Effect.gen(function* () {
      const filename = join(mkdtempSync(join(tmpdir(), "warden-sqlite-")), "s.db")
      yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE t (v TEXT)`
        yield* sql`INSERT INTO t ${sql.insert({ v: "there" })}`
      }).pipe(Effect.provide(SqliteClient.layer({ filename })))
      // Another process holds the file for 400 ms, as the last connection closing a WAL database does
      // while it checkpoints (a reader of the state after a kill -9): the first statements of a
      // connection opened then met "database is locked" and the daemon did not start.
      const holder = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, ["-e", holdFile, filename, "400"], { stdio: ["ignore", "pipe", "inherit"] })
        ),
        (child) => Effect.sync(() => child.kill("SIGKILL"))
      )
      yield* Effect.callback<void>((resume) => {
        holder.stdout.once("data", () => resume(Effect.void))
      })
      const started = Date.now()
      const rows = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ v: string }>`SELECT v FROM t`
      }).pipe(Effect.provide(SqliteClient.layer({ filename })))
      assert.deepStrictEqual(rows, [{ v: "there" }])
      // It waited for the lock, not past it.
      assert.isAtLeast(Date.now() - started, 200)
    }).pipe(Effect.scoped)
  )

  it.live("an interrupted waiter does not hold the connection", () =>
    withTable((sql) =>
      Effect.gen(function* () {
        const holder = yield* sql.withTransaction(Effect.never).pipe(Effect.forkChild)
        yield* Effect.yieldNow
        const waiter = yield* sql`INSERT INTO notes (id, body) VALUES (1, 'w')`.pipe(Effect.forkChild)
        yield* Effect.yieldNow
        yield* Fiber.interrupt(waiter)
        yield* Fiber.interrupt(holder)
        yield* sql`INSERT INTO notes (id, body) VALUES (2, 'after')`
        const rows = yield* sql<{ id: number }>`SELECT id FROM notes ORDER BY id`
        assert.deepStrictEqual(
          rows.map((r) => r.id),
          [2]
        )
      })
    )
  )

  it.live(
    "group commit: commits without an fsync (NORMAL); a durable write is followed by the WAL's fdatasync, ended before it returns",
    () =>
      withTable((sql) =>
        Effect.scoped(
          Effect.gen(function* () {
            const syncs = yield* watchedDatasync
            // 1 is NORMAL (an fsync only at WAL checkpoints), 2 is FULL (an fsync at every commit).
            const level = Effect.map(sql<{ synchronous: number }>`PRAGMA synchronous`, (rows) => rows[0]!.synchronous)
            assert.strictEqual(yield* level, 1)
            yield* sql`INSERT INTO notes (id, body) VALUES (1, 'plain')`
            assert.deepStrictEqual(syncs(), { started: [], ended: 0 })
            const during = yield* SqliteClient.durable(
              sql,
              Effect.andThen(sql`INSERT INTO notes (id, body) VALUES (2, 'checkpoint')`, level)
            )
            // SQLite commits without its own fsync; the WAL's fdatasync, on libuv's pool, ended before durable returned.
            assert.strictEqual(during, 1)
            assert.deepStrictEqual(syncs(), { started: ["s.db-wal"], ended: 1 })
            const failed = yield* SqliteClient.durable(sql, Effect.fail("boom" as const)).pipe(Effect.flip)
            assert.strictEqual(failed, "boom")
            assert.strictEqual(syncs().ended, 1)
            // Ten at once: each returns once a sync that began after its write has ended (how they share syncs:
            // group-sync.test.ts).
            yield* Effect.forEach(
              Array.from({ length: 10 }, (_, i) => i + 3),
              (id) => SqliteClient.durable(sql, sql`INSERT INTO notes (id, body) VALUES (${id}, 'many')`),
              { concurrency: "unbounded", discard: true }
            )
            const after = syncs()
            assert.isAtLeast(after.ended, 2)
            assert.strictEqual(after.started.length, after.ended)
            const rows = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM notes`
            assert.strictEqual(rows[0]!.n, 12)
          })
        )
      )
  )

  it.live(
    "commitThenSync: what follows the commit runs before the WAL's fsync starts (it sees the row); the fsync is the answer's own wait",
    () =>
      withTable((sql) =>
        Effect.scoped(
          Effect.gen(function* () {
            const syncs = yield* watchedDatasync
            const seen: Array<{ readonly rows: number; readonly syncsStarted: number }> = []
            const sync = yield* SqliteClient.commitThenSync(
              sql,
              sql.withTransaction(sql`INSERT INTO notes (id, body) VALUES (1, 'received')`),
              Effect.gen(function* () {
                const rows = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM notes`.pipe(Effect.orDie)
                seen.push({ rows: rows[0]!.n, syncsStarted: syncs().started.length })
              })
            )
            assert.deepStrictEqual(seen, [{ rows: 1, syncsStarted: 0 }])
            // Committed, and nothing synced until the caller waits for it: the writer's next write may go first.
            assert.deepStrictEqual(syncs(), { started: [], ended: 0 })
            yield* sql`INSERT INTO notes (id, body) VALUES (2, 'next round')`
            yield* sync
            assert.deepStrictEqual(syncs(), { started: ["s.db-wal"], ended: 1 })
            // A write that fails commits nothing: what follows does not run, nothing is synced.
            const failed = yield* SqliteClient.commitThenSync(
              sql,
              Effect.fail("boom" as const),
              Effect.sync(() => seen.push({ rows: -1, syncsStarted: -1 }))
            ).pipe(Effect.flip)
            assert.strictEqual(failed, "boom")
            assert.strictEqual(seen.length, 1)
            assert.strictEqual(syncs().ended, 1)
          })
        )
      )
  )

  it.live("a database without a WAL (in memory) makes a durable write commit with FULL, then NORMAL again", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`
      yield* sql`PRAGMA synchronous = NORMAL`
      const level = Effect.map(sql<{ synchronous: number }>`PRAGMA synchronous`, (rows) => rows[0]!.synchronous)
      const during = yield* SqliteClient.durable(
        sql,
        Effect.andThen(sql`INSERT INTO notes (id, body) VALUES (1, 'checkpoint')`, level)
      )
      assert.strictEqual(during, 2)
      assert.strictEqual(yield* level, 1)
    }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" })))
  )
})
