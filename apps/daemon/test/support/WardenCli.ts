/** Runs the `warden` CLI as a user does: a real child process (from source, on the same Node). */
import { execFile } from "node:child_process"

const bin = new URL("../../src/bin.ts", import.meta.url).pathname

/** How a run ended: `code` is null when the process did not exit by itself (killed at `timeoutMs`). */
export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Options of one run: the environment (only `PATH` is inherited) and what stdin holds. */
export interface RunOptions {
  readonly env?: Record<string, string>
  readonly stdin?: string | Uint8Array
  readonly cwd?: string
  /** Killed (SIGTERM) after this long, so a command that should have failed never outlives its test (default 60 s). */
  readonly timeoutMs?: number
}

/** Runs `warden ...args` and resolves with its exit code and output, whatever the code. */
export const warden = (args: ReadonlyArray<string>, options: RunOptions = {}) =>
  new Promise<Run>((resolve) => {
    const child = execFile(
      process.execPath,
      ["--conditions=@warden/source", bin, ...args],
      {
        env: { PATH: process.env.PATH ?? "", ...options.env },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 60_000,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd })
      },
      (error, stdout, stderr) => {
        // a process stopped at the timeout must not pass for one that ended by itself (even with its
        // SIGTERM handler's exit 0)
        const code = child.killed ? null : error === null ? 0 : typeof error.code === "number" ? error.code : null
        resolve({ code, stdout, stderr })
      }
    )
    child.stdin?.end(options.stdin ?? "")
  })

/** A stack trace line (`    at fn (file:1:2)`): never shown to a user. */
export const STACK_TRACE = /^\s+at .+[:(]/m
