/**
 * Shared helpers of the daemon benchmarks: flags, a sandbox in its own process, a load process that
 * measures the sandbox's own capacity, the daemon as a child process (built or from source), RSS
 * sampling, jsonl line counting and the benchmarks doc section.
 *
 * Everything stays on loopback; every child is killed by its pid when a benchmark ends.
 */
import { type ChildProcess, fork, spawn } from "node:child_process"
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { arch, availableParallelism, cpus, loadavg, platform, tmpdir } from "node:os"
import { join } from "node:path"

export const root = new URL("../../", import.meta.url).pathname
export const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
export const KEY = "sandbox-standard-key"

const argv = process.argv.slice(2)
/** `--name N`, or the fallback. */
export const flag = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(argv[i + 1])
}
/** `--name` present. */
export const has = (name: string): boolean => argv.includes(`--${name}`)
/** `--name VALUE`, or undefined. */
export const option = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? undefined : argv[i + 1]
}
/** `--case NAME`: the one case a benchmark of several runs, or undefined for all of them. */
export const onlyCase = option("case")
/** Whether case `name` runs: no `--case`, or `--case name`. */
export const want = (name: string): boolean => onlyCase === undefined || onlyCase === name

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
export const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
/** `median (min–max)` of figures, rounded to `digits`. */
export const spread = (xs: ReadonlyArray<number>, digits = 0) => {
  const f = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
  return xs.length === 1 ? f(xs[0]!) : `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`
}
export const machine = () =>
  `${platform()} ${arch()}, ${cpus()[0]?.model ?? "unknown CPU"} × ${availableParallelism()}, Node ${process.version}`
/** The 1-minute load average, for the record next to a figure (the machine is shared). */
export const loadAverage = (): string => loadavg()[0]!.toFixed(1)
export const tempDir = (name: string) => mkdtempSync(join(tmpdir(), `warden-bench-${name}-`))

/** A progress line (stderr, so stdout keeps the JSON result). */
export const progress = (line: string) => process.stderr.write(`  ${line}\n`)

// ------------------------------------------------------------------------------------ item texts

const WORDS =
  "the a of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part".split(
    " "
  )
const INSULTS = ["idiot", "stupid", "moron", "loser", "I will find you", "shut up"]

/** The text of generated item `i`: 8–30 words, one in seven with an insult, deterministic. */
export const itemText = (i: number): string => {
  let x = (i * 2654435761) >>> 0
  const next = () => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x
  }
  const n = 8 + (next() % 23)
  const words: Array<string> = []
  for (let k = 0; k < n; k++) words.push(WORDS[next() % WORDS.length]!)
  if (i % 7 === 0) words.splice(next() % n, 0, INSULTS[next() % INSULTS.length]!)
  return `${words.join(" ")} #${i}`
}

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** An RSS 2.0 feed of generated items `newest` down to 1, or only the newest `count` of them. */
export const feedXml = (newest: number, count = newest): string => {
  const parts: Array<string> = [
    `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Bench</title><link>http://127.0.0.1/</link><description>generated</description>\n`
  ]
  for (let i = newest; i >= Math.max(1, newest - count + 1); i--) {
    parts.push(
      `<item><guid isPermaLink="false">item-${i}</guid><title>Item ${i}</title><link>http://127.0.0.1/p/${i}</link><description>${escapeXml(itemText(i))}</description></item>\n`
    )
  }
  parts.push("</channel></rss>\n")
  return parts.join("")
}

/** Serves a body on loopback (the feed): a fixed one, or one made for each request. */
export const serve = async (body: string | (() => string), contentType = "application/rss+xml; charset=utf-8") => {
  const fixed = typeof body === "string" ? Buffer.from(body) : undefined
  const server: Server = createServer((_req, res) => {
    const bytes = fixed ?? Buffer.from((body as () => string)())
    res.writeHead(200, { "content-type": contentType, "content-length": bytes.length })
    res.end(bytes)
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}

// ----------------------------------------------------------------------------- child processes

const children = new Set<ChildProcess>()
const killAll = () => {
  for (const c of children) if (c.exitCode === null && c.pid !== undefined) c.kill("SIGKILL")
}
process.on("exit", killAll)
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    killAll()
    process.exit(130)
  })
}
const track = (c: ChildProcess) => {
  children.add(c)
  c.once("exit", () => children.delete(c))
  return c
}

/** The sandbox in its own process (from source); `options` are `Sandbox.startPromise`'s. */
export const startSandbox = async (options: Record<string, unknown> = {}) => {
  const child = track(
    fork(new URL("./sandbox-child.ts", import.meta.url).pathname, [JSON.stringify({ requestLogSize: 0, ...options })], {
      execArgv: ["--conditions=@warden/source"],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
  )
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (m: { url: string }) => resolve(m.url))
    child.once("exit", (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/_sandbox${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } })
    })
    return res.json() as Promise<any>
  }
  return {
    url,
    pid: child.pid!,
    /** Answers by status of one endpoint, e.g. `{ "200": 1234, "429": 2 }`. */
    answers: async (endpoint = "analyzeText"): Promise<Record<string, number>> =>
      (await control("GET", "/stats")).byEndpoint?.[endpoint] ?? {},
    setQuotas: (quotas: unknown) => control("PUT", "/quotas", quotas),
    /** Replaces the fault profile (`{ stall: 1, stallMs: 5000 }`...). */
    setFaults: (faults: unknown) => control("PUT", "/faults", faults),
    reset: () => control("POST", "/reset"),
    close: async () => {
      child.kill("SIGTERM")
      await new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r(null)))
    }
  }
}
export type SandboxProcess = Awaited<ReturnType<typeof startSandbox>>

/**
 * Runs `bench/support/SCRIPT` in its own process (killed with the benchmark, like every child) and
 * resolves with the one message it sends; fails if it exits non-zero first.
 */
export const childMessage = <A>(script: string, args: ReadonlyArray<string>, execArgv: ReadonlyArray<string> = []) => {
  const child = track(
    fork(new URL(`./${script}`, import.meta.url).pathname, [...args], {
      execArgv: [...execArgv],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
  )
  return new Promise<A>((resolve, reject) => {
    child.once("message", (m) => resolve(m as A))
    child.once("exit", (code) => code !== 0 && reject(new Error(`${script} exited with ${code}`)))
  })
}

/**
 * The sandbox's own capacity: a separate load process (undici Pool, keep-alive) sending generated
 * texts to `POST /analyze/v1/text` at `concurrency` for `seconds` after a 1 s warm-up.
 */
export const measureCapacity = (url: string, concurrency: number, seconds: number) =>
  childMessage<{ rps: number; errors: number }>("load-child.ts", [url, String(concurrency), String(seconds)])

/** Resident set size of a process in bytes (Linux /proc; `ps` elsewhere). */
export const rssOf = (pid: number): number => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const m = /VmRSS:\s+(\d+) kB/.exec(status)
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

/**
 * CPU time (user + system) of a process in ms, all its threads, or of one of its threads given `thread`
 * (its main thread's id is the pid). Linux /proc, clock ticks of 10 ms; 0 elsewhere.
 */
export const cpuOf = (pid: number, thread?: number): number => {
  try {
    const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`
    const fields = readFileSync(file, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

/**
 * What a process has written so far, from Linux /proc/PID/io: `written`, the bytes it handed to `write`
 * and friends (files and sockets alike), and `stored`, the bytes it sent to storage (page cache dirtied
 * for a file, less what was cancelled by deleting or truncating the file before writeback). Zeros
 * elsewhere, or when the process is gone.
 */
export const ioOf = (pid: number): { readonly written: number; readonly stored: number } => {
  try {
    const fields = new Map(
      readFileSync(`/proc/${pid}/io`, "utf8")
        .trim()
        .split("\n")
        .map((line) => line.split(": ") as [string, string])
    )
    const n = (name: string) => Number(fields.get(name) ?? 0)
    return { written: n("wchar"), stored: n("write_bytes") - n("cancelled_write_bytes") }
  } catch {
    return { written: 0, stored: 0 }
  }
}

/** The complete lines of a jsonl file, parsed (none when it is missing; a partly written last line is left out). */
export const readJsonl = <A = any>(file: string): Array<A> => {
  if (!existsSync(file)) return []
  const lines = readFileSync(file, "utf8").split("\n")
  lines.pop()
  return lines.filter((l) => l !== "").map((l) => JSON.parse(l) as A)
}

/** Counts the lines of a growing file, reading only what was appended since the last call. */
export const lineCounter = (file: string) => {
  let offset = 0
  let lines = 0
  const buf = Buffer.alloc(1 << 20)
  return () => {
    if (!existsSync(file)) return 0
    const size = statSync(file).size
    if (size <= offset) return lines
    const fd = openSync(file, "r")
    try {
      while (offset < size) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, size - offset), offset)
        if (n <= 0) break
        for (let i = 0; i < n; i++) if (buf[i] === 10) lines++
        offset += n
      }
    } finally {
      closeSync(fd)
    }
    return lines
  }
}

/**
 * Which daemon to run: the built bin (what `pnpm bench` builds) or the TypeScript source: `bin`, another
 * daemon's bin.ts (a baseline copy of apps/daemon/src) for a same-run comparison, or this one's.
 */
export const daemonCommand = (fromSource = has("source"), bin?: string): Array<string> =>
  fromSource
    ? ["--conditions=@warden/source", bin ?? join(root, "apps/daemon/src/bin.ts")]
    : [join(root, "apps/daemon/dist/bin.js")]

/** How a benchmark runs the daemon, each by default from its `BENCH_*` variable. */
export interface DaemonOptions {
  /** With `--source`: another daemon's bin.ts (`BENCH_DAEMON_BIN`). */
  readonly bin?: string | undefined
  /** Node options of the daemon only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (`BENCH_DAEMON_NODE_OPTIONS`). */
  readonly nodeOptions?: string | undefined
  /** More variables of the daemon's environment. */
  readonly env?: Record<string, string>
}

/** Starts `warden run --config FILE` with `config` written (as JSON, which is YAML) into `dir`. */
export const startDaemon = (dir: string, config: unknown, options: DaemonOptions = {}) => {
  const file = join(dir, "warden.yaml")
  writeFileSync(file, JSON.stringify(config, null, 2))
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a knob of the benchmarks, which are not a turbo task
  const bin = options.bin ?? process.env.BENCH_DAEMON_BIN
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a knob of the benchmarks, which are not a turbo task
  const nodeOptions = options.nodeOptions ?? process.env.BENCH_DAEMON_NODE_OPTIONS
  const child = track(
    spawn(process.execPath, [...daemonCommand(has("source"), bin), "run", "--config", file], {
      env: {
        ...process.env,
        NODE_NO_WARNINGS: "1",
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
        ...options.env
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
  )
  let err = ""
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString()
    if (err.length > 200_000) err = err.slice(-100_000)
  })
  child.stdout!.resume()
  let peakRss = 0
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssOf(child.pid!))
  }, 100)
  return {
    pid: child.pid!,
    stderr: () => err,
    rss: () => rssOf(child.pid!),
    /** CPU time used so far, in ms. */
    cpu: () => cpuOf(child.pid!),
    /** Bytes written so far (see {@link ioOf}). */
    io: () => ioOf(child.pid!),
    peakRss: () => Math.max(peakRss, rssOf(child.pid!)),
    exited: () => child.exitCode !== null || child.signalCode !== null,
    stop: async () => {
      clearInterval(sampler)
      if (child.exitCode !== null) return
      child.kill("SIGTERM")
      const done = new Promise((r) => child.once("exit", r))
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
      await done
      clearTimeout(timer)
    }
  }
}

/** The api section pointing at a sandbox, with optional client-side quotas. */
export const apiSection = (url: string, quotas: Record<string, unknown> = {}) => ({
  apiKey: KEY,
  baseUrl: url,
  legacyBaseUrl: url,
  quotas
})

/** The sandbox's quota of `rate` requests/s on `analyzeText`, for every organisation. */
export const analyzeTextQuota = (rate: number, burst?: number) => ({
  "*": { analyzeText: { requestsPerSecond: rate, ...(burst === undefined ? {} : { burst }) } }
})

/** The jsonl file the sink of {@link daemonConfig} writes in `dir`. */
export const verdictsFile = (dir: string) => join(dir, "verdicts.jsonl")

/**
 * The RSS source `bench` reading `feedUrl`: polled once an hour (one poll takes the whole feed) unless
 * `config` says otherwise; `config` adds to or replaces the connector's settings.
 */
export const rssSource = (feedUrl: string, config: Record<string, unknown> = {}, mode?: "v1" | "legacy") => ({
  id: "bench",
  type: "rss",
  channelId: CHANNEL,
  ...(mode === undefined ? {} : { mode }),
  config: { feeds: [{ url: feedUrl, id: "bench" }], pollInterval: "1 hour", maxItemsPerPoll: 100_000, ...config }
})

/** A benchmark daemon's config: `api`, one `source`, SQLite state and a jsonl sink in `dir`, JSON logs. */
export const daemonConfig = (
  dir: string,
  api: ReturnType<typeof apiSection>,
  source: unknown,
  logLevel = "warning"
) => ({
  api,
  state: { sqlite: join(dir, "state.db") },
  sources: [source],
  sinks: [{ type: "jsonl", name: "out", path: verdictsFile(dir) }],
  admin: { listen: "127.0.0.1:0" },
  log: { format: "json", level: logLevel }
})

// ------------------------------------------------------------------------------------ the doc

/** Replaces (or appends) the section between `<!-- name:start -->` and `<!-- name:end -->`. */
export const writeDocSection = (name: string, markdown: string) => {
  const file = join(root, "docs/BENCHMARKS.md")
  const text = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n"
  const start = `<!-- ${name}:start -->`
  const end = `<!-- ${name}:end -->`
  const block = `${start}\n${markdown.trim()}\n${end}`
  const i = text.indexOf(start)
  const j = text.indexOf(end)
  const next =
    i !== -1 && j > i ? `${text.slice(0, i)}${block}${text.slice(j + end.length)}` : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(file, next)
}

/** Writes a result JSON next to the benchmarks (bench/results/NAME.json) when that folder exists. */
export const writeResult = (name: string, result: unknown) => {
  const dir = join(root, "bench/results")
  if (existsSync(dir)) writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`)
}
