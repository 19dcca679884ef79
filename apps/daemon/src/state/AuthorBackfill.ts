/**
 * Author keys for the items recorded before them (migration 0011): the platform of a source is in the
 * config, not in the state, so the daemon fills `author_key` at start, per source, from the stored
 * identifier (`warden_items.author`, kept since 0006) and the source's connector type. Once done it
 * finds nothing more to do: `warden_items_author_unkeyed` holds only the rows still to fill. The username of those items (`author_name`)
 * is not filled: an author's history lists them, by key, without a name.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Fills the missing author keys of each source's items (`platforms`: source id -> connector type). */
export const run = (platforms: ReadonlyMap<string, string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const [source, platform] of platforms) {
      const filled = yield* sql<{ one: number }>`UPDATE warden_items SET author_key = ${`${platform}:`} || author
        WHERE source = ${source} AND author IS NOT NULL AND author_key IS NULL RETURNING 1 AS one`
      if (filled.length > 0)
        yield* Effect.logInfo(`state: author keys filled for ${filled.length} item versions recorded before them`).pipe(
          Effect.annotateLogs({ source })
        )
    }
  }).pipe(Effect.withSpan("AuthorBackfill.run"))
