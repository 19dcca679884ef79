/**
 * Wraps `FileHandle.datasync` (the WAL's group fsync, SqliteClient.ts) for the rest of the scope: the
 * tests watch which files are synced, or hold every sync until they let it go.
 */
import { open } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"

type Datasync = (this: { readonly fd: number }) => Promise<void>

/** Replaces the prototype's `datasync` with `wrap(original)` until the scope closes. */
export const wrapDatasync = (wrap: (original: Datasync) => Datasync) =>
  Effect.gen(function* () {
    const handle = yield* Effect.promise(() => open(fileURLToPath(import.meta.url), "r"))
    const proto = Object.getPrototypeOf(handle) as { datasync: Datasync }
    yield* Effect.promise(() => handle.close())
    const original = proto.datasync
    proto.datasync = wrap(original)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        proto.datasync = original
      })
    )
  })
