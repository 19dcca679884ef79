/**
 * The sinks' tables in the state database (`SinkStore`s their `Sink.make` declares), which erasure and
 * retention rewrite as they do the daemon's own: the daemon provides those of its configured sinks;
 * without it, the built-in sql sink's `warden_verdicts` (a table a sink removed from the file left
 * behind is still erased). Each table is erased only where it exists.
 */
import type { SinkStore } from "@warden/sink"
import { Context } from "effect"

/** The built-in sql sink's table: always erased when it exists (SqlSink.ts declares the same). */
export const SQL_SINK_STORE: SinkStore.SinkStore = { table: "warden_verdicts", records: ["record"] }

/** Every sink table erasure rewrites, unique by table. */
export const SinkStores = Context.Reference<ReadonlyArray<SinkStore.SinkStore>>("@warden/daemon/SinkStores", {
  defaultValue: () => [SQL_SINK_STORE]
})

/** The built-in sql sink's table and `stores`, one entry per table (the first declaration wins). */
export const unique = (stores: ReadonlyArray<SinkStore.SinkStore>): ReadonlyArray<SinkStore.SinkStore> => {
  const byTable = new Map<string, SinkStore.SinkStore>()
  for (const store of [SQL_SINK_STORE, ...stores]) if (!byTable.has(store.table)) byTable.set(store.table, store)
  return [...byTable.values()]
}
