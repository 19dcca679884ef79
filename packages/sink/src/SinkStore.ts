/**
 * Where a sink keeps what it delivered in the daemon's state database, declared so that erasure
 * (`warden erase`) and retention find it as they find the daemon's own tables. A sink that writes only
 * outside the state (a file, a stream, a receiver) declares nothing: what leaves Warden is the
 * receiver's to erase (docs/operations.md, "Retention and erasure").
 *
 * Each table declared has the item version's key as columns `source`, `reference` and `version`.
 * Erasing an item version then rewrites that version's rows: a `records` column (a verdict record as
 * JSON text) loses its content and author fields; `content` and `author` columns are set to NULL.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const Identifier = Schema.String.check(Schema.isPattern(/^[a-z_][a-z0-9_]{0,62}$/u))

/** One table of a sink in the state database. */
export const SinkStore = Schema.Struct({
  /** The table (created by the sink's migrations). */
  table: Identifier,
  /** Columns holding a whole verdict record as JSON text: rewritten without content and author. */
  records: Schema.optionalKey(Schema.Array(Identifier)),
  /** Columns holding content (text, a permalink, a title): set to NULL. */
  content: Schema.optionalKey(Schema.Array(Identifier)),
  /** Columns holding the author (identifier, username): set to NULL. */
  author: Schema.optionalKey(Schema.Array(Identifier))
})
/** @see {@link SinkStore} */
export type SinkStore = typeof SinkStore.Type

/** Every column of a store that erasure changes. */
export const erasedColumns = (store: SinkStore): ReadonlyArray<string> => [
  ...(store.records ?? []),
  ...(store.content ?? []),
  ...(store.author ?? [])
]
