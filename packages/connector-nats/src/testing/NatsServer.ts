/**
 * A real `nats-server` with JetStream for tests: started on a free loopback port with its store in a
 * fresh temporary directory, stopped (`SIGTERM`, or `SIGKILL` for a crash) and started again on the same
 * port and store, removed at `close`. Needs the `nats-server` binary (Debian: `apt-get install
 * nats-server`), found on `PATH` or at `/usr/sbin/nats-server`.
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { type ConsumerInfo, jetstream, jetstreamManager, type StreamConfig } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { Effect, type Scope } from "effect"

/** A running (or stopped) test server. */
export interface NatsServer {
  /** `nats://127.0.0.1:<port>`. */
  readonly url: string
  readonly port: number
  /** Stops the server: `SIGTERM` (default) lets it shut down, `SIGKILL` is a crash. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<void>
  /** Starts it again on the same port and store (JetStream keeps its streams and consumers). */
  readonly start: () => Promise<void>
  /** Stops it and removes its store. */
  readonly close: () => Promise<void>
  /**
   * What the server wrote (stdout and stderr) since its first start, each start and stop marked with the
   * time: for a failing test's message (JetStream's "Restored N messages" lines say what the store kept).
   */
  readonly output: () => string
}

/** The `nats-server` binary: the first on `PATH`, else Debian's `/usr/sbin/nats-server`. */
export const binary = (): string => {
  const candidates = [
    ...(process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "nats-server")),
    "/usr/sbin/nats-server"
  ]
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not there: the next
    }
  }
  throw new Error("nats-server not found on PATH nor at /usr/sbin/nats-server (Debian: apt-get install nats-server)")
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** The most of a server's output kept (its first and last part beyond that). */
const OUTPUT_LIMIT = 200_000

/**
 * Starts the process and waits for "Server is ready" (JetStream recovered); rejects with its output if it
 * exits. All it writes goes to `log` too, and its exit.
 */
const launch = (file: string, port: number, store: string, args: ReadonlyArray<string>, log: (line: string) => void) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(file, ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", store, ...args], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("Server is ready")) {
        child.stdout!.removeListener("data", onData)
        child.stderr!.removeListener("data", onData)
        child.removeListener("exit", onExit)
        resolve(child)
      }
    }
    const onExit = (code: number | null) => reject(new Error(`nats-server exited ${code} at start:\n${output}`))
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.stdout!.on("data", (chunk: Buffer) => log(chunk.toString()))
    child.stderr!.on("data", (chunk: Buffer) => log(chunk.toString()))
    child.once("exit", onExit)
    child.once("exit", (code, signal) => log(`[test ${new Date().toISOString()}] exited ${code ?? signal}\n`))
  })

/** How many free ports a first start tries (see {@link start}). */
const PORT_ATTEMPTS = 5

const portTaken = (error: unknown) => error instanceof Error && error.message.includes("address already in use")

/** Options of {@link start}. */
export interface StartOptions {
  /** Picks the port to try (default: one the system gives on loopback, then let go). */
  readonly freePort?: () => Promise<number>
}

/**
 * Starts a server with JetStream on a free port, in a fresh store directory; `args` are more
 * `nats-server` flags (`["--auth", "s3cret"]` for token authentication). The port is free when picked
 * but let go before nats-server binds it, and another process (another package's tests, run beside
 * these) can take it in between: then the start is tried again on another port, up to 5 ports.
 */
export const start = async (args: ReadonlyArray<string> = [], options: StartOptions = {}): Promise<NatsServer> => {
  const file = binary()
  const store = mkdtempSync(join(tmpdir(), "warden-nats-"))
  const pickPort = options.freePort ?? freePort
  let output = ""
  const log = (text: string) => {
    output += text
    if (output.length > OUTPUT_LIMIT)
      output = `${output.slice(0, OUTPUT_LIMIT / 2)}\n[...]\n${output.slice(-OUTPUT_LIMIT / 2)}`
  }
  const mark = (what: string) => log(`[test ${new Date().toISOString()}] ${what}\n`)
  let port = 0
  let child: ChildProcess | undefined
  for (let attempt = 1; child === undefined; attempt++) {
    port = await pickPort()
    mark(`start on port ${port}`)
    try {
      child = await launch(file, port, store, args, log)
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !portTaken(error)) {
        rmSync(store, { recursive: true, force: true })
        throw error
      }
    }
  }
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()))
    mark(`stop (${signal})`)
    running.kill(signal)
    await exited
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    stop,
    start: async () => {
      if (child !== undefined) return
      mark("start")
      child = await launch(file, port, store, args, log)
    },
    close: async () => {
      await stop("SIGKILL")
      rmSync(store, { recursive: true, force: true })
    },
    output: () => output
  }
}

/** {@link start} in a scope: the server is closed with it. */
export const scoped = (args: ReadonlyArray<string> = []): Effect.Effect<NatsServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => start(args)),
    (server) => Effect.promise(server.close)
  )

/** Runs `f` with a connection to `url`, closed after it. */
const withConnection = async <A>(
  url: string,
  f: (nc: Awaited<ReturnType<typeof connect>>) => Promise<A>,
  token?: string
): Promise<A> => {
  const nc = await connect({ servers: url, ...(token === undefined ? {} : { token }) })
  try {
    return await f(nc)
  } finally {
    await nc.close()
  }
}

/** Creates a stream (`{ name, subjects }` and any other settings); `token` for a server started with `--auth`. */
export const createStream = (url: string, config: Partial<StreamConfig> & { readonly name: string }, token?: string) =>
  withConnection(
    url,
    async (nc) => {
      const manager = await jetstreamManager(nc)
      await manager.streams.add(config)
    },
    token
  )

/** Publishes each body (an object is sent as JSON) on `subject`, waiting for the stream's acks. */
export const publish = (url: string, subject: string, bodies: ReadonlyArray<unknown>, token?: string) =>
  withConnection(
    url,
    async (nc) => {
      const js = jetstream(nc)
      for (const body of bodies) await js.publish(subject, typeof body === "string" ? body : JSON.stringify(body))
    },
    token
  )

/** The server's view of a consumer (`num_ack_pending`, `num_pending`, `delivered`...). */
export const consumerInfo = (url: string, stream: string, durable: string, token?: string): Promise<ConsumerInfo> =>
  withConnection(url, async (nc) => (await jetstreamManager(nc)).consumers.info(stream, durable), token)

/** A message stored in a stream, as a test reads it back. */
export interface StoredMessage {
  readonly seq: number
  readonly subject: string
  /** Its `Nats-Msg-Id` header (`""` when it has none). */
  readonly msgId: string
  readonly data: string
}

/** Every message `stream` stores, in order (read one by one: for tests' few thousands). */
export const messages = (url: string, stream: string, token?: string): Promise<ReadonlyArray<StoredMessage>> =>
  withConnection(
    url,
    async (nc) => {
      const manager = await jetstreamManager(nc)
      const { state } = await manager.streams.info(stream)
      const out: Array<StoredMessage> = []
      for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
        const m = await manager.streams.getMessage(stream, { seq })
        if (m !== null)
          out.push({ seq, subject: m.subject, msgId: m.header.get("Nats-Msg-Id") ?? "", data: m.string() })
      }
      return out
    },
    token
  )

/** A stream's state as the server reports it (`first_seq`, `last_seq`, `messages`, `num_deleted`...). */
export const streamState = (url: string, stream: string, token?: string) =>
  withConnection(url, async (nc) => (await (await jetstreamManager(nc)).streams.info(stream)).state, token)
