/**
 * Whether a file could be written, found out before anything is done that would be lost if it could
 * not (`analyze --save-request` before the call; `config check --connect` before `run`). Nothing is
 * left behind: a missing file is tried by creating and removing a probe file in the nearest existing
 * directory, an existing one by opening it for append without writing.
 */
import { randomBytes } from "node:crypto"
import { closeSync, openSync, statSync, unlinkSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { describeErrno } from "../state/Errno.ts"

/** Why a path cannot be written, as a short phrase (`permission denied`, `is a directory`, ...). */
export type Problem = string

const errnoOf = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : undefined

/** A system error code as the phrase a user reads (state/Errno.ts, where the daemon's own messages get it too). */
export { describeErrno } from "../state/Errno.ts"

/**
 * Why a file cannot be created in `directory`, found by creating and removing one: `access(2)` says
 * yes to root everywhere, while a read-only or virtual file system (`/sys`) still refuses.
 */
const cannotCreateIn = (directory: string): Problem | undefined => {
  const probe = join(directory, `.warden-write-test-${process.pid}-${randomBytes(4).toString("hex")}`)
  try {
    closeSync(openSync(probe, "wx"))
    unlinkSync(probe)
    return undefined
  } catch (e) {
    return describeErrno(errnoOf(e), String(e))
  }
}

/** Why an existing file cannot be appended to (opened for append, nothing written). */
const cannotAppend = (file: string): Problem | undefined => {
  try {
    closeSync(openSync(file, "a"))
    return undefined
  } catch (e) {
    return describeErrno(errnoOf(e), String(e))
  }
}

/**
 * Why `file` cannot be written, or `undefined` when it can. `createDirectories`: missing parent
 * directories would be created (as the jsonl sink does), so the nearest existing ancestor must be a
 * writable directory; otherwise the parent itself must exist.
 */
export const problemOf = (file: string, options: { readonly createDirectories: boolean }): Problem | undefined => {
  const path = resolve(file)
  try {
    const stat = statSync(path)
    if (stat.isDirectory()) return "is a directory"
    return cannotAppend(path)
  } catch (e) {
    if (errnoOf(e) !== "ENOENT") return describeErrno(errnoOf(e), String(e))
  }
  let parent = dirname(path)
  for (;;) {
    try {
      const stat = statSync(parent)
      if (!stat.isDirectory()) return `${parent} is not a directory`
      return cannotCreateIn(parent)
    } catch (e) {
      if (errnoOf(e) !== "ENOENT") return describeErrno(errnoOf(e), String(e))
      if (!options.createDirectories) return `no such directory ${parent}`
      const up = dirname(parent)
      if (up === parent) return `no such directory ${parent}`
      parent = up
    }
  }
}
