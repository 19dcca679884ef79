/**
 * The embedded state database: an `effect/sql` `SqlClient` over Node's built-in `node:sqlite`.
 *
 * Why our own: `@effect/sql-sqlite-node` 4.0.0-beta.102 imports `effect/unstable/...`, which effect 4.1
 * removed; it ran here only through a pnpm patch that a published `@warden/daemon` cannot carry. The
 * client needs little of its own: `effect/sql` supplies the statement compiler (`makeCompilerSqlite`,
 * so `sql.insert`, `sql.in` and `onDialectOrElse({ sqlite })` behave as SQLite expects), the
 * transaction machinery (`SqlClient.make`) and the one-connection-behind-a-semaphore acquirers
 * (`makeSqliteAcquirers`, which also repairs a connection after a failed COMMIT). What is left is
 * running a compiled statement on `DatabaseSync`, with prepared statements cached per SQL text.
 *
 * One connection serves every fiber: SQLite allows one writer, and `node:sqlite` is synchronous, so a
 * pool would only add lock contention. WAL lets readers in other processes (`sqlite3` on the file) in.
 *
 * Group commit: the connection runs WAL with `synchronous = NORMAL`, so a COMMIT writes its frames to
 * the WAL (safe against a killed process: they are in the OS) without an fsync, and the commits that
 * must survive a power loss ask for one with {@link durable} (the source checkpoint: CheckpointStore).
 * The WAL is replayed in order up to its first missing frame, so a durable commit makes every earlier
 * commit durable with it: a checkpoint is never on disk without the verdicts recorded before it. One
 * fsync per batch instead of one per write transaction (cluster message, record, reply, outbox
 * delete...) was the daemon's largest wall-time cost. That fsync is not SQLite's own (`synchronous =
 * FULL` for the one commit, which blocked the event loop ~1 ms per batch: `node:sqlite` is
 * synchronous) but an `fdatasync` of the WAL file on libuv's thread pool once the commit is written,
 * shared by the durable commits that ask while one runs (internal/GroupSync.ts).
 */
import { type FileHandle, open } from "node:fs/promises"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { Context, Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import * as GroupSync from "./internal/GroupSync.ts"
import * as SearchText from "./internal/SearchText.ts"

/** Options of the embedded SQLite client. */
export interface SqliteClientOptions {
  /** The database file (created if missing), or `:memory:`. */
  readonly filename: string
  /** How many prepared statements to keep; the daemon issues a few dozen distinct ones. */
  readonly prepareCacheSize?: number | undefined
}

type Row = Record<string, unknown>

/** Gives a `node:sqlite` error the `errno` that `classifySqliteError` reads (node names it `errcode`). */
const withErrno = (cause: unknown): unknown => {
  if (typeof cause !== "object" || cause === null || "errno" in cause) return cause
  const errcode = (cause as { readonly errcode?: unknown }).errcode
  return typeof errcode === "number" ? Object.assign(cause, { errno: errcode }) : cause
}

const sqlError = (cause: unknown, message: string, operation: string) =>
  new SqlError.SqlError({ reason: SqlError.classifySqliteError(withErrno(cause), { message, operation }) })

/**
 * Prepared statements by SQL text, least recently used dropped first. Only statements without
 * interpolated lists repeat, so a small cache holds the hot ones.
 */
const statementCache = (db: DatabaseSync, capacity: number) => {
  const cache = new Map<string, StatementSync>()
  return (sql: string): StatementSync => {
    const hit = cache.get(sql)
    if (hit !== undefined) {
      // Re-inserting moves the entry to the end: Map keeps insertion order.
      cache.delete(sql)
      cache.set(sql, hit)
      return hit
    }
    const statement = db.prepare(sql)
    cache.set(sql, statement)
    if (cache.size > capacity) cache.delete(cache.keys().next().value!)
    return statement
  }
}

/** Runs one statement: rows for a query, `[]` (or the run result when `raw`) for anything else. */
const runStatement = (
  statement: StatementSync,
  params: ReadonlyArray<unknown>,
  mode: "rows" | "raw" | "values"
): Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError> =>
  Effect.withFiber((fiber) =>
    Effect.try({
      try: () => {
        statement.setReadBigInts(Context.get(fiber.context, SqlClient.SafeIntegers))
        statement.setReturnArrays(mode === "values")
        const args = params as Array<never>
        if (statement.columns().length > 0) return statement.all(...args)
        const result = statement.run(...args)
        return mode === "raw" ? (result as unknown as ReadonlyArray<unknown>) : []
      },
      catch: (cause) => sqlError(cause, "Failed to execute statement", "execute")
    })
  )

/** The connection `SqlClient.make` drives: every way of running a compiled statement. */
const makeConnection = (db: DatabaseSync, prepareCacheSize: number): SqlConnection.Connection => {
  const cached = statementCache(db, prepareCacheSize)
  const prepare = (sql: string, fresh: boolean) =>
    Effect.try({
      try: () => (fresh ? db.prepare(sql) : cached(sql)),
      catch: (cause) => sqlError(cause, "Failed to prepare statement", "prepare")
    })
  const rows = (sql: string, params: ReadonlyArray<unknown>, fresh: boolean) =>
    Effect.flatMap(prepare(sql, fresh), (s) => runStatement(s, params, "rows")) as Effect.Effect<
      ReadonlyArray<Row>,
      SqlError.SqlError
    >
  const values = (sql: string, params: ReadonlyArray<unknown>, fresh: boolean) =>
    Effect.flatMap(prepare(sql, fresh), (s) => runStatement(s, params, "values")) as Effect.Effect<
      ReadonlyArray<ReadonlyArray<unknown>>,
      SqlError.SqlError
    >
  return {
    execute: (sql, params, transformRows) =>
      transformRows === undefined ? rows(sql, params, false) : Effect.map(rows(sql, params, false), transformRows),
    executeUnprepared: (sql, params, transformRows) =>
      transformRows === undefined ? rows(sql, params, true) : Effect.map(rows(sql, params, true), transformRows),
    executeRaw: (sql, params) => Effect.flatMap(prepare(sql, false), (s) => runStatement(s, params, "raw")),
    executeValues: (sql, params) => values(sql, params, false),
    executeValuesUnprepared: (sql, params) => values(sql, params, true),
    // Nothing in the daemon streams from SQLite; `node:sqlite` iterators would hold the one connection.
    executeStream: () => Stream.die(new Error("streaming queries are not supported by the embedded SQLite client"))
  }
}

/**
 * How long a statement waits for another process's lock on the file (an operator's `sqlite3`, a backup,
 * a `warden` command, a test reading the state) before failing with "database is locked". Set when the
 * file is opened, so it covers the connection's very first statements (`PRAGMA journal_mode = WAL`):
 * `node:sqlite` opens with no wait at all, and a `PRAGMA busy_timeout` (the state store's, until
 * 2026-11-29) comes after them. Without it a daemon started while another process opened or closed the file failed
 * at once, "cannot start: database is locked" (3 of 29 starts beside a process reading the file every
 * millisecond): the last connection to close a WAL database takes an exclusive lock to checkpoint and
 * remove the WAL, as a test's or an operator's reader does after a kill -9.
 */
export const busyTimeoutMillis = 10_000

/** Opens the database in the current scope (closed with it) and builds the `SqlClient` over it. */
export const make = Effect.fn("SqliteClient.make")(function* (options: SqliteClientOptions) {
  const db = yield* Effect.acquireRelease(
    Effect.try({
      try: () => new DatabaseSync(options.filename, { timeout: busyTimeoutMillis }),
      catch: (cause) => sqlError(cause, `Failed to open ${options.filename}`, "connect")
    }),
    (db) => Effect.sync(() => db.close())
  )
  const wal =
    options.filename !== ":memory:" &&
    (db.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode?: unknown } | undefined)?.journal_mode === "wal"
  if (options.filename !== ":memory:") db.exec("PRAGMA synchronous = NORMAL")
  // The decision search's function (DecisionStore): content without zero-width or bidirectional characters.
  SearchText.register(db)
  const walSync = wal ? yield* walSyncOf(`${options.filename}-wal`) : undefined
  const connection = makeConnection(db, options.prepareCacheSize ?? 200)
  const acquirers = SqlClient.makeSqliteAcquirers({
    connection: Effect.succeed(connection),
    semaphore: yield* Semaphore.make(1),
    isTransaction: () => db.isTransaction
  })
  const client = yield* SqlClient.make({
    driver: "node:sqlite",
    compiler: Statement.makeCompilerSqlite(),
    acquirer: acquirers.acquirer,
    borrower: acquirers.borrower,
    transactionAcquirer: acquirers.transactionAcquirer,
    onCommitFailure: acquirers.onCommitFailure,
    isTransaction: acquirers.isTransaction,
    spanAttributes: [["db.system.name", "sqlite"]]
  })
  if (walSync !== undefined) walSyncs.set(client, walSync)
  return client
})

/**
 * The group fsync of a WAL file: opened at the first sync (SQLite creates the file with the first
 * write), opened again after a failed one, closed with the scope.
 */
const walSyncOf = (path: string) =>
  Effect.gen(function* () {
    let handle: Promise<FileHandle> | undefined
    const close = () => {
      const closing = handle?.then((h) => h.close()).catch(() => undefined)
      handle = undefined
      return closing
    }
    yield* Effect.addFinalizer(() => Effect.promise(async () => close()))
    const sync = GroupSync.make(async () => {
      handle ??= open(path, "r+")
      try {
        await (await handle).datasync()
      } catch (cause) {
        void close()
        throw cause
      }
    })
    return Effect.tryPromise({
      try: sync,
      catch: (cause) => sqlError(cause, `Failed to sync ${path}`, "commit")
    })
  })

/** Each WAL-mode client's group fsync ({@link durable} is given the client its caller holds). */
const walSyncs = new WeakMap<SqlClient.SqlClient, Effect.Effect<void, SqlError.SqlError>>()

/** The `SqlClient` on an SQLite file, for the state store and the cluster runner. */
export const layer = (options: SqliteClientOptions): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))

/**
 * Runs `effect` (one write, committed on its own) and then makes it durable on SQLite, whose connection
 * otherwise commits without an fsync (group commit, see above): when it returns, it and every commit
 * before it are on disk. In WAL mode that is the WAL's group fsync, off the event loop; otherwise (a
 * file whose journal could not switch to WAL) the write commits with `synchronous = FULL`. Other
 * dialects commit durably anyway: `effect` runs as it is.
 */
export const durable = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>) =>
  sql.onDialectOrElse({
    sqlite: () => {
      const walSync = walSyncs.get(sql)
      if (walSync !== undefined) return Effect.tap(effect, () => walSync)
      return durableLock.withPermits(1)(
        Effect.acquireUseRelease(
          sql`PRAGMA synchronous = FULL`,
          () => effect,
          () => sql`PRAGMA synchronous = NORMAL`.pipe(Effect.ignore)
        )
      )
    },
    orElse: () => effect
  })

/**
 * {@link durable} in two steps, for a writer that goes on to its next write while the fsync runs: runs
 * `effect`, then `committed` once it has committed, and answers the wait for its durability (in WAL mode
 * the group fsync, which only the callers of this write wait for; otherwise nothing left, the commit was
 * durable). What `committed` starts (a reader of the new rows) may act on rows not yet on disk: its own
 * commits come after them in the WAL, so a power loss cannot keep its work without them.
 */
export const commitThenSync = <A, E, R, R2>(
  sql: SqlClient.SqlClient,
  effect: Effect.Effect<A, E, R>,
  committed: Effect.Effect<void, never, R2>
): Effect.Effect<Effect.Effect<void, SqlError.SqlError>, E | SqlError.SqlError, R | R2> =>
  sql.onDialectOrElse({
    sqlite: () => {
      const walSync = walSyncs.get(sql)
      if (walSync !== undefined)
        return effect.pipe(
          Effect.tap(() => committed),
          Effect.as(walSync)
        )
      return durable(sql, effect).pipe(
        Effect.tap(() => committed),
        Effect.as(Effect.void)
      )
    },
    orElse: () =>
      effect.pipe(
        Effect.tap(() => committed),
        Effect.as(Effect.void)
      )
  })

/**
 * One `synchronous = FULL` write at a time: two interleaved (FULL, FULL, write, NORMAL, write) would let
 * the second commit without its fsync. Other writes in between only get an fsync they did not need.
 */
const durableLock = Semaphore.makeUnsafe(1)
