/**
 * Authors (issue 37): the items of one person across the sources of a platform, found by their key
 * (`warden_items.author_key` = `<platform>:<identifier>`) through `warden_items_author_key` (author,
 * newest first). What the record transaction reads of an author's recent items (`when.author`), an
 * author's history and counts (`GET /api/authors/{key}`), and the keys behind a username (erasure where
 * a platform gives only that).
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { Verdict } from "../domain/Verdict.ts"
import * as Rows from "./internal/Rows.ts"

/** An author key: `<platform>:<identifier>`. */
export const keyOf = (platform: string, identifier: string) => `${platform}:${identifier}`

/** The platform and identifier of a key (the platform ends at the first `:`). */
export const partsOf = (key: string): { readonly platform: string; readonly identifier: string } => {
  const at = key.indexOf(":")
  return at < 0 ? { platform: "", identifier: key } : { platform: key.slice(0, at), identifier: key.slice(at + 1) }
}

/** A recent item of an author, as the record transaction's author conditions read it. */
export interface RecentItem {
  readonly authorKey: string
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly createdAt: number
  readonly type: string | null
  readonly severity: string | null
}

/** One of an author's items, as their history lists it. */
export interface AuthorItem {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly status: string
  readonly verdict: Verdict | null
  readonly createdAt: number
  readonly authorName: string | null
  readonly erasedAt: string | null
  readonly deletedAt: string | null
}

/** Where a page of an author's items ended. */
export interface AuthorItemPosition {
  readonly createdAt: number
  readonly source: string
  readonly reference: string
  readonly version: number
}

/** What is known of an author from their items. */
export interface AuthorSummary {
  readonly key: string
  /** Item versions stored. */
  readonly items: number
  readonly usernames: ReadonlyArray<string>
  readonly sources: ReadonlyArray<string>
  readonly firstSeenAt: number
  readonly lastSeenAt: number
}

/** An author's items since a time, by type and severity (the counts of the history). */
export interface AuthorCounts {
  readonly total: number
  readonly byType: Readonly<Record<string, number>>
  readonly bySeverity: Readonly<Record<string, number>>
}

const RecentRow = Schema.Struct({
  author_key: Schema.String,
  source: Schema.String,
  reference: Schema.String,
  version: Rows.Int,
  created_at: Rows.Int,
  verdict_type: Rows.Text,
  severity: Rows.Text
})
const decodeRecent = Rows.decode("warden_items", RecentRow)
const ItemRow = Schema.Struct({
  source: Schema.String,
  reference: Schema.String,
  version: Rows.Int,
  status: Schema.String,
  verdict: Schema.NullOr(Schema.fromJsonString(Verdict)),
  created_at: Rows.Int,
  author_name: Rows.Text,
  erased_at: Rows.Text,
  deleted_at: Rows.Text
})
const decodeItems = Rows.decode("warden_items", ItemRow)
const decodeSummary = Rows.decode(
  "warden_items",
  Schema.Struct({ first: Schema.NullOr(Rows.Int), last: Schema.NullOr(Rows.Int), n: Rows.Int })
)
const decodeNames = Rows.decode("warden_items", Schema.Struct({ author_name: Schema.String }))
const decodeSources = Rows.decode("warden_items", Schema.Struct({ source: Schema.String }))
const decodeCounts = Rows.decode(
  "warden_items",
  Schema.Struct({ verdict_type: Rows.Text, severity: Rows.Text, created_at: Rows.Int })
)
const decodeKeys = Rows.decode("warden_items", Schema.Struct({ author_key: Schema.String }))
const decodeNone = Rows.decode("warden_items", Schema.Struct({ n: Rows.Int }))

/** Authors. */
export interface AuthorStoreShape {
  /** The items of some authors recorded at or after `since` (the record transaction's author context). */
  readonly recent: (
    authorKeys: ReadonlyArray<string>,
    since: number
  ) => Effect.Effect<ReadonlyArray<RecentItem>, SqlError.SqlError>
  /** What is known of an author, or undefined when no item of theirs is stored. */
  readonly summary: (authorKey: string) => Effect.Effect<AuthorSummary | undefined, SqlError.SqlError>
  /**
   * The author's items since each of `since` (epoch millis), counted by type and severity: one read
   * of the longest window.
   */
  readonly counts: (
    authorKey: string,
    since: ReadonlyArray<number>
  ) => Effect.Effect<ReadonlyArray<AuthorCounts>, SqlError.SqlError>
  /** A page of the author's item versions, newest first. */
  readonly items: (
    authorKey: string,
    limit: number,
    after: AuthorItemPosition | undefined
  ) => Effect.Effect<ReadonlyArray<AuthorItem>, SqlError.SqlError>
  /**
   * The author keys whose items in `source` were recorded under `username` (erasure by username), and
   * how many of those items carry no key (their event named no identifier).
   */
  readonly keysByUsername: (
    source: string,
    username: string
  ) => Effect.Effect<{ readonly keys: ReadonlyArray<string>; readonly withoutKey: number }, SqlError.SqlError>
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return AuthorStore.of({
    recent: Effect.fn("AuthorStore.recent")(function* (authorKeys: ReadonlyArray<string>, since: number) {
      if (authorKeys.length === 0) return []
      const out: Array<RecentItem> = []
      for (let i = 0; i < authorKeys.length; i += 200) {
        const rows = yield* decodeRecent(
          yield* sql`SELECT author_key, source, reference, version, created_at, verdict_type, severity
            FROM warden_items WHERE ${sql.in("author_key", authorKeys.slice(i, i + 200))} AND created_at >= ${since}`
        )
        for (const r of rows)
          out.push({
            authorKey: r.author_key,
            source: r.source,
            reference: r.reference,
            version: r.version,
            createdAt: r.created_at,
            type: r.verdict_type,
            severity: r.severity
          })
      }
      return out
    }),
    summary: Effect.fn("AuthorStore.summary")(function* (authorKey: string) {
      const [span] = yield* decodeSummary(
        yield* sql`SELECT MIN(created_at) AS first, MAX(created_at) AS last, COUNT(*) AS n
          FROM warden_items WHERE author_key = ${authorKey}`
      )
      if (span === undefined || span.n === 0 || span.first === null || span.last === null) return undefined
      const names = yield* decodeNames(
        yield* sql`SELECT DISTINCT author_name FROM warden_items
          WHERE author_key = ${authorKey} AND author_name IS NOT NULL ORDER BY author_name`
      )
      const sources = yield* decodeSources(
        yield* sql`SELECT DISTINCT source FROM warden_items WHERE author_key = ${authorKey} ORDER BY source`
      )
      return {
        key: authorKey,
        items: span.n,
        usernames: names.map((n) => n.author_name),
        sources: sources.map((s) => s.source),
        firstSeenAt: span.first,
        lastSeenAt: span.last
      } satisfies AuthorSummary
    }),
    counts: Effect.fn("AuthorStore.counts")(function* (authorKey: string, since: ReadonlyArray<number>) {
      const oldest = Math.min(...since)
      const rows = yield* decodeCounts(
        yield* sql`SELECT verdict_type, severity, created_at FROM warden_items
          WHERE author_key = ${authorKey} AND created_at >= ${oldest}`
      )
      return since.map((at) => {
        const byType: Record<string, number> = {}
        const bySeverity: Record<string, number> = {}
        let total = 0
        for (const r of rows) {
          if (r.created_at < at) continue
          total++
          const type = r.verdict_type ?? "NONE"
          byType[type] = (byType[type] ?? 0) + 1
          if (r.severity !== null) bySeverity[r.severity] = (bySeverity[r.severity] ?? 0) + 1
        }
        return { total, byType, bySeverity } satisfies AuthorCounts
      })
    }),
    items: Effect.fn("AuthorStore.items")(function* (
      authorKey: string,
      limit: number,
      after: AuthorItemPosition | undefined
    ) {
      const rows = yield* decodeItems(
        yield* sql`SELECT source, reference, version, status, verdict, created_at, author_name, erased_at, deleted_at
          FROM warden_items WHERE author_key = ${authorKey}
          ${
            after === undefined
              ? sql``
              : sql`AND created_at <= ${after.createdAt} AND (created_at < ${after.createdAt}
                  OR (source > ${after.source} OR (source = ${after.source} AND (reference > ${after.reference}
                  OR (reference = ${after.reference} AND version < ${after.version})))))`
          }
          ORDER BY created_at DESC, source, reference, version DESC LIMIT ${limit}`
      )
      return rows.map(
        (r): AuthorItem => ({
          source: r.source,
          reference: r.reference,
          version: r.version,
          status: r.status,
          verdict: r.verdict,
          createdAt: r.created_at,
          authorName: r.author_name,
          erasedAt: r.erased_at,
          deletedAt: r.deleted_at
        })
      )
    }),
    keysByUsername: Effect.fn("AuthorStore.keysByUsername")(function* (source: string, username: string) {
      const rows = yield* decodeKeys(
        yield* sql`SELECT DISTINCT author_key FROM warden_items
          WHERE source = ${source} AND author_name = ${username} AND author_key IS NOT NULL ORDER BY author_key`
      )
      const [none] = yield* decodeNone(
        yield* sql`SELECT COUNT(*) AS n FROM warden_items
          WHERE source = ${source} AND author_name = ${username} AND author_key IS NULL`
      )
      return { keys: rows.map((r) => r.author_key), withoutKey: none?.n ?? 0 }
    })
  })
})

/** Authors. */
export class AuthorStore extends Context.Service<AuthorStore, AuthorStoreShape>()("@warden/daemon/AuthorStore") {
  /** On the (migrated) `SqlClient` in context. */
  static readonly layer = Layer.effect(AuthorStore, make)
}
