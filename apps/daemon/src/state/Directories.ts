/**
 * Creates the directory a file the daemon writes lives in (the SQLite state file, a jsonl sink, the
 * generated admin token), with its missing parents, and fails with the system error when it cannot.
 *
 * Not `mkdir(path, { recursive: true })`: Node's recursive mkdir takes ENOENT to mean "a parent is
 * missing", creates the parent (EEXIST: fine) and tries the child again, forever, when the parent exists
 * but refuses children with ENOENT, as `/proc` does (`/proc/x/out.jsonl`). The synchronous form then
 * pinned a core inside one call, so the event loop never ran the SIGTERM handler (issue 35: ~95% CPU, kill
 * -9 needed); the promise form never settles. Here each directory is created on its own, parents first
 * only after the directory itself was refused with ENOENT, and a second ENOENT after the parent exists
 * is final: at most two `mkdir` calls per level of the path.
 */
import { mkdir } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import { Effect } from "effect"
import { codeOf } from "./Errno.ts"

const create = async (directory: string): Promise<void> => {
  try {
    await mkdir(directory)
  } catch (first) {
    if (codeOf(first) === "EEXIST") return
    const parent = dirname(directory)
    if (codeOf(first) !== "ENOENT" || parent === directory) throw first
    await create(parent)
    try {
      await mkdir(directory)
    } catch (again) {
      // The parent is there now: a second ENOENT is the file system's answer, not a missing parent.
      if (codeOf(again) !== "EEXIST") throw again
    }
  }
}

/**
 * Creates `directory` and its missing parents. Fails with Node's error (`code`, `syscall: "mkdir"`,
 * `path`: what StartupFailure names the setting by). An existing file at the path is left for the
 * caller's open to report (ENOTDIR).
 */
export const ensure = (directory: string): Effect.Effect<void, NodeJS.ErrnoException> =>
  Effect.tryPromise({ try: () => create(resolve(directory)), catch: (e) => e as NodeJS.ErrnoException })

/** Creates the directory `file` lives in, as {@link ensure}. */
export const ensureParentOf = (file: string): Effect.Effect<void, NodeJS.ErrnoException> => ensure(dirname(file))
