/**
 * A fresh PostgreSQL database per test on the machine's server (127.0.0.1:5432, trust auth; `PG_URL`
 * overrides the admin connection), dropped afterwards, so tests never share tables.
 */
import { randomBytes } from "node:crypto"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const adminUrl = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** The URL of database `name` on the test server. */
export const databaseUrl = (name: string): string => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const admin = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* f(yield* SqlClient.SqlClient)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl) })), Effect.scoped)
  )

/** Runs one statement as the server's admin (on the `test` database). */
export const adminStatement = (statement: string): Promise<void> =>
  admin((sql) => sql.unsafe(statement)).then(() => undefined)

/** Creates a database; returns its name, its URL and a function dropping it. */
export const freshDatabase = async () => {
  const name = `warden_${randomBytes(6).toString("hex")}`
  await admin((sql) => sql.unsafe(`CREATE DATABASE ${name}`))
  return {
    name,
    url: databaseUrl(name),
    drop: () => admin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
  }
}
