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
import { createHash } from "node:crypto"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { AuditStore } from "./AuditStore.ts"
import { AuthorStore } from "./AuthorStore.ts"
import { makeAudit, type AuditRecord } from "./ErasureAudit.ts"
import { type Counts, type Erased, ZERO } from "./ErasureCounts.ts"
import { decodeKeys, makeSelectorQueries } from "./ErasureKeys.ts"
import { type Actor, authorSelector, type Selector, type UsernameAuthor, type UsernamePlan } from "./ErasureSelector.ts"
import { makeStatements } from "./ErasureStatements.ts"
import { ItemStore } from "./ItemStore.ts"
import { SinkStores } from "./SinkStores.ts"

/** The `sha256:<hex>` an author id is audited as. */
export const hashOf = (value: string) => `sha256:${createHash("sha256").update(value).digest("hex")}`

const make = Effect.gen(function* () {
  // The store runs the migrations (and, on SQLite, turns secure_delete on) before this is used.
  yield* ItemStore
  const sql = yield* SqlClient.SqlClient
  const audits = yield* AuditStore
  const authors = yield* AuthorStore
  const stores = yield* SinkStores
  const { eraseKeys, checkpoint } = makeStatements(sql, stores)
  const { audit, auditLog } = makeAudit(sql)
  const { intakeOf, keysOf } = makeSelectorQueries(sql)

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
