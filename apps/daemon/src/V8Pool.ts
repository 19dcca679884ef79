/**
 * The size of V8's worker thread pool for the daemon, chosen from the machine's cores so that no
 * operator has to pass a flag.
 *
 * Why: Node starts V8 with 4 worker threads whatever the machine (`--v8-pool-size`). V8 runs a
 * scavenge's parallel tasks, concurrent marking and background compilation on them. On a 2-core machine
 * shared with the API client's peers (a sandbox, a load generator, a database), the daemon's main thread
 * waits in each scavenge for tasks that compete with it and with each other for the 2 cores. With a pool
 * of 1 (the main thread and one worker), a check's added p99 at the quota was lower in 10 of 11
 * interleaved pairs and at most 19.8 ms in all 11 (median 25.2 ms, up to 89 ms, with 4), the 202's own
 * path's p99 lower in 3 of 3 pairs, CPU per check the same or a little more (docs/BENCHMARKS.md, "V8's
 * worker pool").
 *
 * The pool's size is read only when Node starts, so `warden run` starts again, once, with the flag:
 * `process.execve` replaces the process image with the same command (the same PID, so a supervisor, a
 * signal and the exit code see one process), before any module of the program is loaded. An operator's
 * own `--v8-pool-size` (on the command line or in `NODE_OPTIONS`) wins, and nothing changes on a machine
 * with 5 cores or more (4 is Node's own size) or where `process.execve` is missing (Windows).
 */
import { availableParallelism } from "node:os"

/** Node's own pool size, and the most this module asks for. */
const nodeDefault = 4

/** One worker per core beside the main thread's, at least 1, at most Node's own 4. */
export const forCores = (cores: number): number => Math.max(1, Math.min(nodeDefault, cores - 1))

/** What the process was started with, as {@link restartArguments} reads it. */
export interface Started {
  /** Node's own options (`process.execArgv`). */
  readonly execArgv: ReadonlyArray<string>
  /** `process.argv`: node, the script, then the program's arguments. */
  readonly argv: ReadonlyArray<string>
  readonly nodeOptions: string | undefined
  readonly cores: number
}

/** The global options that take a value as the next argument (`warden --log-level warn run`). */
const globalOptionsWithValue = new Set(["--log-level", "--completions"])

/** The subcommand: the first of the program's arguments that is neither an option nor a global option's value. */
const subcommand = (args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (globalOptionsWithValue.has(arg)) i++
    else if (!arg.startsWith("-")) return arg
  }
  return undefined
}

/**
 * The arguments (after the node executable) to start `warden run` again with, or `undefined` to go on
 * as started: another command (a short one gains nothing), a pool size already given, or a machine
 * where the size would be Node's own.
 */
export const restartArguments = (started: Started): ReadonlyArray<string> | undefined => {
  if (subcommand(started.argv.slice(2)) !== "run") return undefined
  if (/--v8-pool-size/u.test(`${started.execArgv.join(" ")} ${started.nodeOptions ?? ""}`)) return undefined
  const size = forCores(started.cores)
  if (size >= nodeDefault) return undefined
  return [`--v8-pool-size=${size}`, ...started.execArgv, ...started.argv.slice(1)]
}

/** Starts `warden run` again with a pool sized to the machine when it should (see the module's comment). */
export const apply = (): void => {
  const args = restartArguments({
    execArgv: process.execArgv,
    argv: process.argv,
    nodeOptions: process.env.NODE_OPTIONS,
    cores: availableParallelism()
  })
  if (args === undefined || process.execve === undefined) return
  try {
    process.execve(process.execPath, [process.execPath, ...args], process.env)
  } catch {
    // The image could not be replaced (a platform without it, a sandboxed executable): go on with
    // Node's own pool, which works, only less well on a small machine.
  }
}
