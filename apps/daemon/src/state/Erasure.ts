/**
 * Retention and erasure of stored content (issue 16). Content is personal data: the text and image of
 * an item, the exact request sent, the response, the source event, and the copies of them in the
 * segments, the sink outbox and its dead letters, the source dead letters, the feedback sent, the
 * `sql` sink's `warden_verdicts` and processed cluster messages. Erasing an item version removes all of
 * those and keeps what dedupe, statistics and audits need: source, reference, version, content hash,
 * status, verdict (type, severity, classifications: no content) and action outcomes.
 *
 * "Erased" means gone from the files: on SQLite the store runs with `secure_delete` on (freed cells
 * and pages are zeroed when freed, so no stale copy is left by earlier page splits either) and each
 * erasure ends with a `wal_checkpoint(TRUNCATE)` (the WAL holds old page images until then). On
 * PostgreSQL an UPDATE or DELETE leaves the old tuple in the table file until VACUUM reuses the space
 * (docs/operations.md, "Retention and erasure").
 *
 * Every erasure writes one audit row (`warden_erasures`): who, when, the selector, the counts; an
 * author's id only as its SHA-256.
 */
import { createHash, randomUUID } from "node:crypto"
import type { SinkStore } from "@warden/sink"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Like from "./internal/Like.ts"
import * as Rows from "./internal/Rows.ts"
import { AuditStore } from "./AuditStore.ts"
import { AuthorStore, partsOf } from "./AuthorStore.ts"
import { authorOf } from "./ItemAuthor.ts"
import { ItemStore } from "./ItemStore.ts"
import { SinkStores } from "./SinkStores.ts"

/** Which item versions to erase. */
export type Selector =
  | { readonly _tag: "Reference"; readonly reference: string; readonly source?: string | undefined }
  /** An author by the platform's identifier alone, in one source or all (before author keys). */
  | { readonly _tag: "Author"; readonly author: string; readonly source?: string | undefined }
  /**
   * An author by key (`<platform>:<identifier>`), across every source of the platform: their items,
   * name, strikes and review statements. `sources` are the sources of that platform, where items
   * recorded before author keys are found by the identifier.
   */
  | { readonly _tag: "AuthorKey"; readonly key: string; readonly sources: ReadonlyArray<string> }
  /**
   * The items of one source recorded under a username (where that is all a platform gives): with their
   * author's name and strikes. Erase the keys they carry too, for the rest of those authors' records.
   */
  | { readonly _tag: "Username"; readonly username: string; readonly source: string }

/** Who asked for an erasure: a name (`cli:<user>@<host>`, a moderator, `admin-token`) and a role. */
export interface Actor {
  readonly name: string
  readonly role: string
}

/** How many stored rows an erasure changed, per place. */
export interface Counts {
  /** Item versions whose content was erased. */
  readonly items: number
  readonly segments: number
  readonly outbox: number
  readonly deadLetters: number
  readonly sourceDeadLetters: number
  readonly feedback: number
  /** Rows of the sinks' tables: the `sql` sink's `warden_verdicts` and any a sink declares (`stores`). */
  readonly sqlSink: number
  /** Processed cluster messages that carried the items (unprocessed ones are work in flight). */
  readonly clusterMessages: number
  /** The author's strikes (erasure by author). */
  readonly strikes: number
  /** Review rows whose statement, note or author went. */
  readonly reviews: number
  /** Items a push source received and had not yet recorded (`warden_intake`), deleted whole. */
  readonly intake: number
}

/** The outcome of one erasure. */
export interface Erased {
  readonly counts: Counts
  /** The references erased (per source), for the operator's record. */
  readonly references: ReadonlyArray<{ readonly source: string; readonly reference: string }>
  /** The audit row's id (`null` when the selector named no stored item). */
  readonly audit: string | null
}

/** An audit row, as `warden erase --audit` and the admin API show it. */
export interface AuditRecord {
  readonly id: string
  readonly at: string
  readonly actor: string
  readonly selector: string
  /** The reference, or `sha256:<hex>` of an author id, or the retention period. */
  readonly target: string | null
  readonly source: string | null
  readonly counts: Counts
}

const ZERO: Counts = {
  items: 0,
  segments: 0,
  outbox: 0,
  deadLetters: 0,
  sourceDeadLetters: 0,
  feedback: 0,
  sqlSink: 0,
  clusterMessages: 0,
  strikes: 0,
  reviews: 0,
  intake: 0
}

/** A row of the audit as stored: the counts as JSON text (a count an older daemon did not keep is 0). */
const AuditRow = Schema.Struct({
  id: Schema.String,
  at: Rows.Int,
  actor: Schema.String,
  selector: Schema.String,
  target: Rows.Text,
  source: Rows.Text,
  counts: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Number))
})
const decodeAudit = Rows.decode("warden_erasures", AuditRow)

/** What an erased item's `event` column holds: no content, enough to say what happened. */
export const erasedEvent = (reference: string) => JSON.stringify({ reference, erased: true })

/** The `sha256:<hex>` an author id is audited as. */
export const hashOf = (value: string) => `sha256:${createHash("sha256").update(value).digest("hex")}`

/** A verdict record (outbox, dead letter, `sql` sink) without its content fields. */
export const withoutContent = (payload: string): string => {
  try {
    const record = JSON.parse(payload) as Record<string, unknown>
    if (typeof record !== "object" || record === null) return "{}"
    delete record.text
    delete record.permalink
    delete record.author
    return JSON.stringify(record)
  } catch {
    return "{}"
  }
}

/** An item version, as read back (`version` a number on both dialects). */
const KeyRow = Schema.Struct({ source: Schema.String, reference: Schema.String, version: Rows.Int })
type Key = typeof KeyRow.Type
const decodeKeys = Rows.decode("warden_items", KeyRow)
/** An item version recorded before the author column, with its source event (JSON text). */
const decodeKeyEvents = Rows.decode(
  "warden_items",
  KeyRow.mapFields((fields) => ({ ...fields, event: Schema.String }))
)

/** Whether a table exists: COUNT(*) of the catalogue. */
const decodeTableCount = Rows.decodeCount("the catalogue (information_schema.tables, sqlite_master)")

/** A JSON payload column and the row's id. */
const PayloadRow = Schema.Struct({ payload: Schema.String, id: Schema.String })
const decodePayloads = {
  warden_outbox: Rows.decode("warden_outbox", PayloadRow),
  warden_dead_letters: Rows.decode("warden_dead_letters", PayloadRow)
}
/** A record column of a sink's table, rewritten by its item key. */
const RecordRow = Schema.Struct({ payload: Schema.String })

const make = Effect.gen(function* () {
  // The store runs the migrations (and, on SQLite, turns secure_delete on) before this is used.
  yield* ItemStore
  const sql = yield* SqlClient.SqlClient
  const audits = yield* AuditStore
  const authors = yield* AuthorStore
  const stores = yield* SinkStores

  const tableExists = (name: string) =>
    sql
      .onDialectOrElse({
        pg: () =>
          sql`SELECT COUNT(*) AS n FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_name = ${name}`,
        orElse: () => sql`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${name}`
      })
      .pipe(
        Effect.flatMap(decodeTableCount),
        Effect.map((n) => n > 0)
      )

  /** Rewrites the JSON payload column of the rows of one item version without its content fields. */
  const rewritePayloads = (table: keyof typeof decodePayloads, column: string, key: Key) =>
    Effect.gen(function* () {
      const rows = yield* decodePayloads[table](
        yield* sql`SELECT ${sql(column)} AS payload, id FROM ${sql(table)}
        WHERE source = ${key.source} AND reference = ${key.reference} AND version = ${key.version}`
      )
      let changed = 0
      for (const row of rows) {
        const stripped = withoutContent(row.payload)
        if (stripped === row.payload) continue
        changed += 1
        yield* sql`UPDATE ${sql(table)} SET ${sql(column)} = ${stripped} WHERE id = ${row.id}`
      }
      return changed
    })

  /**
   * Erases one item version from a sink's table, as its store declares: each record column rewritten
   * without content and author, each content and author column set to NULL. Counts the rows changed.
   */
  const eraseStore = (store: SinkStore.SinkStore, key: Key) =>
    Effect.gen(function* () {
      const where = sql`source = ${key.source} AND reference = ${key.reference} AND version = ${key.version}`
      const changed = new Set<string>()
      for (const column of store.records ?? []) {
        const rows = yield* Rows.decode(
          store.table,
          RecordRow
        )(yield* sql`SELECT ${sql(column)} AS payload FROM ${sql(store.table)} WHERE ${where}`)
        for (const row of rows) {
          const stripped = withoutContent(row.payload)
          if (stripped === row.payload) continue
          changed.add(row.payload)
          yield* sql`UPDATE ${sql(store.table)} SET ${sql(column)} = ${stripped}
            WHERE ${where} AND ${sql(column)} = ${row.payload}`
        }
      }
      const nulled = [...(store.content ?? []), ...(store.author ?? [])]
      let cleared = 0
      if (nulled.length > 0) {
        const rows = yield* sql<{ one: number }>`UPDATE ${sql(store.table)}
          SET ${sql.update(Object.fromEntries(nulled.map((c) => [c, null])))}
          WHERE ${where} AND ${sql.or(nulled.map((c) => sql`${sql(c)} IS NOT NULL`))} RETURNING 1 AS one`
        cleared = rows.length
      }
      return Math.max(changed.size, cleared)
    })

  /** Erases the content of item versions (one transaction); counts what changed. */
  const eraseKeys = (keys: ReadonlyArray<Key>, options: { readonly clusterMessages: boolean }) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const counts = { ...ZERO }
        const sinkTables = yield* Effect.filter(stores, (store) => tableExists(store.table))
        const cluster = options.clusterMessages && (yield* tableExists("cluster_messages"))
        const now = new Date().toISOString()
        const references = new Map<string, { source: string; reference: string }>()
        for (const key of keys) {
          const where = sql`source = ${key.source} AND reference = ${key.reference} AND version = ${key.version}`
          const items = yield* sql<{ one: number }>`UPDATE warden_items SET request = NULL, response = NULL,
              event = ${erasedEvent(key.reference)}, author = NULL, author_key = NULL, author_name = NULL,
              erased_at = ${now}
            WHERE ${where} AND erased_at IS NULL RETURNING 1 AS one`
          counts.items += items.length
          // An appeal's statement is the author's words; a note may quote them.
          const reviews = yield* sql<{ one: number }>`UPDATE warden_review SET statement = NULL, note = NULL,
              author_key = NULL
            WHERE ${where} AND (statement IS NOT NULL OR note IS NOT NULL OR author_key IS NOT NULL) RETURNING 1 AS one`
          counts.reviews += reviews.length
          const segments = yield* sql<{ one: number }>`DELETE FROM warden_segments WHERE ${where} RETURNING 1 AS one`
          counts.segments += segments.length
          counts.outbox += yield* rewritePayloads("warden_outbox", "payload", key)
          counts.deadLetters += yield* rewritePayloads("warden_dead_letters", "payload", key)
          for (const store of sinkTables) counts.sqlSink += yield* eraseStore(store, key)
          const feedback = yield* sql<{
            one: number
          }>`UPDATE warden_feedback SET request = ${erasedEvent(key.reference)}
            WHERE ${where} AND request <> ${erasedEvent(key.reference)} RETURNING 1 AS one`
          counts.feedback += feedback.length
          yield* sql`DELETE FROM warden_reanalyse WHERE source = ${key.source} AND reference = ${key.reference}
            AND version <= ${key.version}`
          references.set(`${key.source}\u001f${key.reference}`, { source: key.source, reference: key.reference })
        }
        for (const { source, reference } of references.values()) {
          const letters = yield* sql<{ one: number }>`DELETE FROM warden_source_dead_letters
            WHERE source = ${source} AND reference = ${reference} RETURNING 1 AS one`
          counts.sourceDeadLetters += letters.length
          if (cluster) {
            // A processed batch message is history (ClusterTables.purgeProcessed); one still to be
            // processed is work in flight and stays. The reference appears as a JSON string, or, in the
            // events' JSON text of a message (BatchEvent.toText), as that string escaped once more.
            const quoted = JSON.stringify(reference)
            const pattern = Like.containing(quoted)
            const nested = Like.containing(JSON.stringify(quoted).slice(1, -1))
            const processed = sql.onDialectOrElse({ pg: () => sql.literal("TRUE"), orElse: () => sql.literal("1") })
            yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM cluster_messages
              WHERE processed = ${processed} AND (payload LIKE ${pattern} ESCAPE '\\'
                OR payload LIKE ${nested} ESCAPE '\\'))`
            const messages = yield* sql<{ one: number }>`DELETE FROM cluster_messages
              WHERE processed = ${processed} AND (payload LIKE ${pattern} ESCAPE '\\'
                OR payload LIKE ${nested} ESCAPE '\\') RETURNING 1 AS one`
            counts.clusterMessages += messages.length
          }
        }
        return { counts: counts as Counts, references: [...references.values()] }
      })
    )

  /** SQLite: copies the WAL into the file and empties it, so no old page image is left in it. */
  const checkpoint = sql.onDialectOrElse({
    sqlite: () => sql`PRAGMA wal_checkpoint(TRUNCATE)`.pipe(Effect.asVoid),
    orElse: () => Effect.void
  })

  const audit = (row: {
    readonly actor: string
    readonly selector: string
    readonly target: string | undefined
    readonly source: string | undefined
    readonly counts: Counts
  }) =>
    Effect.gen(function* () {
      const id = randomUUID()
      const at = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO warden_erasures ${sql.insert({
        id,
        at,
        actor: row.actor,
        selector: row.selector,
        target: row.target ?? null,
        source: row.source ?? null,
        counts: JSON.stringify(row.counts)
      })}`
      return id
    })

  /** The rows of the push sources' intake a selector names (by reference, author id or username). */
  const intakeOf = (selector: Selector) => {
    switch (selector._tag) {
      case "Reference":
        return selector.source === undefined
          ? sql`reference = ${selector.reference}`
          : sql`reference = ${selector.reference} AND source = ${selector.source}`
      case "Author":
        return selector.source === undefined
          ? sql`author = ${selector.author}`
          : sql`author = ${selector.author} AND source = ${selector.source}`
      case "AuthorKey":
        return selector.sources.length === 0
          ? sql`1 = 0`
          : sql`author = ${partsOf(selector.key).identifier} AND ${sql.in("source", selector.sources)}`
      case "Username":
        return sql`source = ${selector.source} AND author_name = ${selector.username}`
    }
  }

  /** The item versions a selector names (erased ones included: erasing again is a no-op, not an error). */
  const keysOf = (selector: Selector) =>
    Effect.gen(function* () {
      const only =
        selector._tag === "AuthorKey" || selector._tag === "Username" || selector.source === undefined
          ? sql``
          : sql`AND source = ${selector.source}`
      if (selector._tag === "Reference") {
        return yield* decodeKeys(
          yield* sql`SELECT source, reference, version FROM warden_items
            WHERE reference = ${selector.reference} ${only} ORDER BY source, version`
        )
      }
      if (selector._tag === "Username") {
        return yield* decodeKeys(
          yield* sql`SELECT source, reference, version FROM warden_items
            WHERE source = ${selector.source} AND author_name = ${selector.username}`
        )
      }
      if (selector._tag === "AuthorKey") {
        const byKey = yield* decodeKeys(
          yield* sql`SELECT source, reference, version FROM warden_items WHERE author_key = ${selector.key}`
        )
        // Rows recorded before author keys (and erased-and-kept ones): by the identifier in the platform's sources.
        const { identifier } = partsOf(selector.key)
        const older =
          selector.sources.length === 0
            ? []
            : yield* decodeKeys(
                yield* sql`SELECT source, reference, version FROM warden_items
                  WHERE author = ${identifier} AND author_key IS NULL AND ${sql.in("source", selector.sources)}`
              )
        return [...byKey, ...older]
      }
      const indexed = yield* decodeKeys(
        yield* sql`SELECT source, reference, version FROM warden_items
          WHERE author = ${selector.author} ${only}`
      )
      // Rows recorded before the author column existed: found by their event, confirmed by parsing it.
      const pattern = Like.containing(JSON.stringify(selector.author))
      const older = yield* decodeKeyEvents(
        yield* sql`SELECT source, reference, version, event FROM warden_items
          WHERE author IS NULL AND erased_at IS NULL AND event LIKE ${pattern} ESCAPE '\\' ${only}`
      )
      return [
        ...indexed,
        ...older.filter((r) => authorOf(r.event) === selector.author).map(({ event: _, ...key }) => key)
      ]
    })

  /**
   * Erases every stored copy of the content of the items a selector names (by author: their name,
   * strikes and review statements too), and records the erasure and its audit row in the same
   * transaction. `actor` says who asked (`cli:<user>`, a moderator, `admin-token`).
   */
  const erase = Effect.fn("Erasure.erase")(function* (selector: Selector, actor: Actor) {
    const keys = yield* keysOf(selector)
    const received = yield* sql<{ one: number }>`SELECT 1 AS one FROM warden_intake WHERE ${intakeOf(selector)} LIMIT 1`
    // Nothing stored under that selector: nothing to erase, nothing to audit (the caller says "not found").
    if (keys.length === 0 && received.length === 0)
      return { counts: ZERO, references: [], audit: null } satisfies Erased
    const target =
      selector._tag === "Reference"
        ? selector.reference
        : hashOf(
            selector._tag === "AuthorKey"
              ? selector.key
              : selector._tag === "Username"
                ? `${selector.source}/${selector.username}`
                : selector.author
          )
    const source = selector._tag === "AuthorKey" ? undefined : selector.source
    const done = yield* sql.withTransaction(
      Effect.gen(function* () {
        const erased = yield* eraseKeys(keys, { clusterMessages: true })
        const counts = { ...erased.counts }
        // Received and not yet recorded: the whole row goes (it is only content, and it is not analysed).
        const intake = yield* sql<{
          one: number
        }>`DELETE FROM warden_intake WHERE ${intakeOf(selector)} RETURNING 1 AS one`
        counts.intake += intake.length
        if (selector._tag !== "Reference") {
          // The author's record goes with their items: strikes, and what review rows still name them.
          const items = [...new Map(keys.map((k) => [`${k.source}\u001f${k.reference}`, k])).values()]
          for (const k of items) {
            const gone = yield* sql<{ one: number }>`DELETE FROM warden_strikes
              WHERE source = ${k.source} AND reference = ${k.reference} RETURNING 1 AS one`
            counts.strikes += gone.length
          }
          if (selector._tag === "AuthorKey") {
            const gone = yield* sql<{ one: number }>`DELETE FROM warden_strikes WHERE author_key = ${selector.key}
              RETURNING 1 AS one`
            counts.strikes += gone.length
            const reviews = yield* sql<{ one: number }>`UPDATE warden_review SET statement = NULL, note = NULL,
              author_key = NULL WHERE author_key = ${selector.key} RETURNING 1 AS one`
            counts.reviews += reviews.length
          }
        }
        const id = yield* audit({
          actor: actor.name,
          selector: selector._tag === "Reference" ? "reference" : selector._tag === "Username" ? "username" : "author",
          target,
          source,
          counts
        })
        yield* audits.record({
          at: yield* Clock.currentTimeMillis,
          actor: actor.name,
          role: actor.role,
          action: "erase",
          source,
          reference: selector._tag === "Reference" ? selector.reference : undefined,
          detail: {
            erasure: id,
            selector:
              selector._tag === "Reference" ? "reference" : selector._tag === "Username" ? "username" : "author",
            target,
            counts
          }
        })
        return { counts: counts as Counts, references: erased.references, audit: id }
      })
    )
    yield* checkpoint
    return done satisfies Erased
  })

  /**
   * Retention: erases the content of a source's item versions recorded before `before` (epoch
   * millis), up to `limit` versions per call (call again while it returns `limit`), and the source's
   * dead-lettered events last seen before then; an item acted on or sent to review recorded at or
   * after `appealableAfter` is kept (it may still be appealed). Audited when anything changed.
   */
  const sweep = Effect.fn("Erasure.sweep")(function* (options: {
    readonly source: string
    readonly before: number
    readonly retention: string
    readonly limit?: number | undefined
    readonly appealableAfter?: number | undefined
  }) {
    const limit = options.limit ?? 500
    // What can still be appealed keeps its content: an item Warden acted on or sent to review, recorded
    // within the appeal window (an appeal quotes its request as feedback).
    const appealable =
      options.appealableAfter === undefined || options.appealableAfter >= options.before
        ? sql``
        : sql`AND (i.created_at < ${options.appealableAfter} OR (
            NOT EXISTS (SELECT 1 FROM warden_actions a
              WHERE a.source = i.source AND a.reference = i.reference AND a.version = i.version)
            AND NOT EXISTS (SELECT 1 FROM warden_review r
              WHERE r.source = i.source AND r.reference = i.reference AND r.version = i.version)))`
    const keys = yield* decodeKeys(
      yield* sql`SELECT i.source, i.reference, i.version FROM warden_items i
        WHERE i.source = ${options.source} AND i.created_at < ${options.before} AND i.erased_at IS NULL
        ${appealable} ORDER BY i.created_at LIMIT ${limit}`
    )
    const done = yield* eraseKeys(keys, { clusterMessages: false })
    const letters = yield* sql<{ one: number }>`DELETE FROM warden_source_dead_letters
      WHERE source = ${options.source} AND last_at < ${options.before} RETURNING 1 AS one`
    const counts: Counts = { ...done.counts, sourceDeadLetters: done.counts.sourceDeadLetters + letters.length }
    const changed = Object.values(counts).some((n) => n > 0)
    if (changed) {
      yield* audit({
        actor: "retention",
        selector: "retention",
        target: options.retention,
        source: options.source,
        counts
      })
      yield* checkpoint
    }
    return { counts, more: keys.length === limit }
  })

  /** The audit of erasures, newest first. */
  const auditLog = (limit: number) =>
    sql`SELECT * FROM warden_erasures ORDER BY at DESC, id LIMIT ${limit}`.pipe(
      Effect.flatMap(decodeAudit),
      Effect.map((rows) =>
        rows.map(
          (r): AuditRecord => ({
            id: r.id,
            at: new Date(r.at).toISOString(),
            actor: r.actor,
            selector: r.selector,
            target: r.target,
            source: r.source,
            counts: { ...ZERO, ...r.counts }
          })
        )
      )
    )

  /**
   * What erasing a username of a source would erase: the authors (keys) whose items there carry that
   * name, each with all their items (across the platform's sources), and the items of that name that
   * name no identifier.
   */
  const byUsername = Effect.fn("Erasure.byUsername")(function* (source: string, username: string) {
    const found = yield* authors.keysByUsername(source, username)
    const listed: Array<UsernameAuthor> = []
    for (const key of found.keys) {
      const summary = yield* authors.summary(key)
      if (summary !== undefined)
        listed.push({ key, items: summary.items, sources: summary.sources, usernames: summary.usernames })
    }
    return { source, username, authors: listed, withoutKey: found.withoutKey } satisfies UsernamePlan
  })

  /** Erases what {@link byUsername} lists: each author by key, then the items of that name without one. */
  const eraseUsername = Effect.fn("Erasure.eraseUsername")(function* (
    plan: UsernamePlan,
    platforms: ReadonlyMap<string, string>,
    actor: Actor
  ) {
    const done: Array<Erased> = []
    for (const author of plan.authors) done.push(yield* erase(authorSelector(author.key, undefined, platforms), actor))
    done.push(yield* erase({ _tag: "Username", username: plan.username, source: plan.source }, actor))
    return done.filter((d) => d.audit !== null)
  })

  return { erase, sweep, auditLog, byUsername, eraseUsername } as const
})

/** An author erasure by username would erase. */
export interface UsernameAuthor {
  readonly key: string
  readonly items: number
  readonly sources: ReadonlyArray<string>
  readonly usernames: ReadonlyArray<string>
}

/** What erasing a username of a source would erase (the confirmation lists it). */
export interface UsernamePlan {
  readonly source: string
  readonly username: string
  readonly authors: ReadonlyArray<UsernameAuthor>
  /** Items of that name whose event named no identifier. */
  readonly withoutKey: number
}

/** Retention and erasure of stored content. */
export class Erasure extends Context.Service<
  Erasure,
  {
    readonly erase: (selector: Selector, actor: Actor) => Effect.Effect<Erased, SqlError.SqlError>
    readonly sweep: (options: {
      readonly source: string
      readonly before: number
      readonly retention: string
      readonly limit?: number | undefined
      /** Items acted on or sent to review recorded at or after this time are kept (the appeal window). */
      readonly appealableAfter?: number | undefined
    }) => Effect.Effect<{ readonly counts: Counts; readonly more: boolean }, SqlError.SqlError>
    readonly auditLog: (limit: number) => Effect.Effect<ReadonlyArray<AuditRecord>, SqlError.SqlError>
    readonly byUsername: (source: string, username: string) => Effect.Effect<UsernamePlan, SqlError.SqlError>
    readonly eraseUsername: (
      plan: UsernamePlan,
      platforms: ReadonlyMap<string, string>,
      actor: Actor
    ) => Effect.Effect<ReadonlyArray<Erased>, SqlError.SqlError>
  }
>()("@warden/daemon/Erasure") {
  /** On the state store's SQL client. */
  static readonly layer = Layer.effect(Erasure, make)
}

/**
 * The selector an author given on the command line or in `DELETE /api/authors/{author}` names:
 * `<platform>:<identifier>` (a platform of `platforms`: every source of it), else, as before author
 * keys, an identifier (in `source`, or in every source). `platforms`: source id -> connector type.
 */
export const authorSelector = (
  author: string,
  source: string | undefined,
  platforms: ReadonlyMap<string, string>
): Selector => {
  const { platform } = partsOf(author)
  const known = new Set(platforms.values())
  if (known.has(platform) && (source === undefined || platforms.get(source) === platform))
    return {
      _tag: "AuthorKey",
      key: author,
      sources: [...platforms].filter(([, p]) => p === platform).map(([id]) => id)
    }
  return { _tag: "Author", author, source }
}
