/**
 * The generated admin token, kept out of the log stream. On a terminal it is shown once on stderr
 * (the operator is watching). Anywhere else (systemd, Docker, Kubernetes: stderr is the log stream,
 * shipped and kept) it goes to a file readable by its owner only (0600) in the data directory, and only
 * that file's path is logged.
 */
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Redacted } from "effect"
import * as Directories from "../state/Directories.ts"
import { describeErrno } from "./Writable.ts"

/** The file name of the token in the data directory. */
export const FILE_NAME = "admin-token"

/** The token could not be written (the data directory is read-only or missing a permission). */
export interface TokenFileFailure {
  readonly path: string
  readonly reason: string
}

/**
 * Writes the token to `<dataDir>/admin-token` (mode 0600, replacing a previous run's), returning the
 * path. Fails with what went wrong, for a start-up failure naming `state.dir`.
 */
export const writeTokenFile = (
  dataDir: string,
  token: Redacted.Redacted<string>
): Effect.Effect<string, TokenFileFailure> =>
  Directories.ensure(dataDir).pipe(
    Effect.andThen(
      Effect.try({
        try: () => {
          const path = join(dataDir, FILE_NAME)
          writeFileSync(path, `${Redacted.value(token)}\n`, { mode: 0o600 })
          // `mode` applies only when the file is created: a file left by an older run is tightened too.
          chmodSync(path, 0o600)
          return path
        },
        catch: (e) => e
      })
    ),
    Effect.mapError((e) => ({
      path: join(dataDir, FILE_NAME),
      reason: describeErrno((e as { code?: string }).code, String((e as Error).message))
    }))
  )
