/** Runs `warden run` as a real child process (from source, on the same Node), for crash and signal tests. */
import { type ChildProcess, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"

const bin = new URL("../../src/bin.ts", import.meta.url).pathname

/** A running daemon process. */
export interface DaemonProcess {
  readonly child: ChildProcess
  readonly stderr: () => string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /**
   * Sends `signal` once the daemon has started (logged `warden running`). A signal sent while Node is
   * still loading modules meets no handler and kills the process (exit code null): under load that
   * happened when a restarted daemon found its work already done and the test stopped it at once.
   */
  readonly stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Starts `warden [...flags] run --config file` (`flags`: the global options, such as `--log-level`), in
 * `options.cwd` (default: the test's).
 */
export const startDaemon = (
  configFile: string,
  env: Record<string, string> = {},
  flags: ReadonlyArray<string> = [],
  options: { readonly cwd?: string } = {}
): DaemonProcess => {
  const child = spawn(process.execPath, ["--conditions=@warden/source", bin, ...flags, "run", "--config", configFile], {
    env: { ...process.env, ...env, NODE_NO_WARNINGS: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd })
  })
  let err = ""
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString()
  })
  child.stdout?.resume()
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    await Promise.race([
      waitFor(() => err.includes("warden running"), 60_000, `the daemon to start\n${err.slice(-1500)}`),
      exited
    ])
    child.kill(signal)
    return exited
  }
  return { child, stderr: () => err, exited, stop }
}

/** A source polling a feed nobody serves, every 5 minutes: a daemon that runs and has nothing to do. */
export const idleFeedSource = {
  id: "feed",
  type: "rss",
  channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
  config: { feeds: ["http://127.0.0.1:9/feed.xml"], pollInterval: "5m" }
}

/** Writes a YAML config (JSON is YAML) into `dir` and returns its path. */
export const writeConfig = (dir: string, config: unknown): string => {
  const file = join(dir, "warden.yaml")
  writeFileSync(file, JSON.stringify(config, null, 2))
  return file
}

/**
 * Polls `check` every 50 ms until it holds or `timeoutMs` passes. `what` as a function is read at the
 * timeout: a daemon's output then, not the empty output of when the wait began.
 */
export const waitFor = async (
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string | (() => string)
) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`)
}

/**
 * `waitFor` on the work of `daemon`: fails as soon as the daemon has exited instead of waiting out
 * `timeoutMs` for a process that is gone (a second run of nats-crash that could not start, "database
 * is locked", looked like a 60 s stall).
 */
export const waitWhileRunning = (
  daemon: DaemonProcess,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: () => string
) =>
  waitFor(
    async () => {
      if (await check()) return true
      const { exitCode, signalCode } = daemon.child
      if (exitCode !== null || signalCode !== null) {
        throw new Error(`the daemon exited (${exitCode ?? signalCode}) while waiting for ${what()}`)
      }
      return false
    },
    timeoutMs,
    what
  )

/** A free loopback port (listened on and closed), for a daemon whose admin address the test must know. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Kills with SIGKILL those of `daemons` still running, and waits for every one to exit. */
export const killAll = async (daemons: ReadonlyArray<DaemonProcess>) => {
  for (const d of daemons) if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill("SIGKILL")
  await Promise.all(daemons.map((d) => d.exited))
}

/**
 * `waitFor` for tests of several daemons (`daemons()`: the current ones, restarts included): its
 * failure shows `what` as it is then and each daemon's last log lines.
 */
export const waitShowingLogs =
  (daemons: () => ReadonlyArray<DaemonProcess>) =>
  (check: () => Promise<boolean>, timeoutMs: number, what: () => string) =>
    waitFor(check, timeoutMs, "").catch((e: Error) => {
      const logs = daemons()
        .map((d, i) => `runner ${i}:\n${d.stderr().slice(-2500)}`)
        .join("\n---\n")
      throw new Error(`${e.message}${what()}\n${logs}`)
    })
