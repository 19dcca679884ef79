/**
 * What an operator sees when the daemon cannot start: one line on stderr in the configured log format,
 * naming the setting at fault, no stack trace, exit 78 when the file is at fault and 1 otherwise; and
 * `warden config check --connect`, which finds the same problems before `run`.
 */
import { mkdtempSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, writeConfig } from "./support/DaemonProcess.ts"
import { databaseUrl } from "./support/Postgres.ts"
import { STACK_TRACE, warden } from "./support/WardenCli.ts"

let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
const held: Array<Server> = []
beforeAll(async () => {
  sandbox = await Sandbox.startPromise({})
})
afterAll(async () => {
  await sandbox.close()
  for (const s of held) s.close()
})

/** A port held by another listener for the whole file. */
const heldPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    held.push(server)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
  })

interface Options {
  readonly sinks?: ReadonlyArray<Record<string, unknown>>
  readonly state?: Record<string, unknown>
  readonly adminPort: number
  readonly format?: "json" | "logfmt" | "pretty"
  readonly legacy?: boolean
}

const startupConfig = (options: Options) => {
  const dir = mkdtempSync(join(tmpdir(), "warden-startup-"))
  const source = (id: string, mode: string) => ({
    id,
    type: "rss",
    mode,
    channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
    config: { feeds: ["http://127.0.0.1:9/feed.xml"], pollInterval: "5 minutes" }
  })
  const file = writeConfig(dir, {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a secret reference of the config file
    api: { apiKey: "${env:KEY}", baseUrl: sandbox.url, legacyBaseUrl: sandbox.url },
    state: options.state ?? { sqlite: "./state.db" },
    sources: options.legacy === true ? [source("feed", "v1"), source("old", "legacy")] : [source("feed", "v1")],
    sinks: options.sinks ?? [{ type: "stdout" }],
    admin: { listen: `127.0.0.1:${options.adminPort}` },
    log: { format: options.format ?? "json" }
  })
  return { dir, file }
}

const run = (file: string) => warden(["run", "--config", file], { env: { KEY: "sandbox-standard-key" } })

/** The one fatal line: stderr holds nothing else but config warnings. */
const fatalLine = (stderr: string) => {
  const lines = stderr.split("\n").filter((l) => l !== "" && !l.startsWith("warning: "))
  expect(lines).toHaveLength(1)
  return lines[0]!
}

describe("warden run, when it cannot start", () => {
  it("a jsonl sink path that cannot be created is one JSON log line naming sinks.0.path, exit 78", async () => {
    const { file } = startupConfig({
      sinks: [{ type: "jsonl", path: "/sys/warden-test/verdicts.jsonl" }],
      adminPort: 0
    })
    const r = await run(file)
    expect(r.stdout).toBe("")
    expect(r.stderr).not.toMatch(STACK_TRACE)
    const line = JSON.parse(fatalLine(r.stderr))
    expect(line).toMatchObject({
      level: "FATAL",
      message: "sinks.0.path: cannot create /sys/warden-test: permission denied",
      annotations: { setting: "sinks.0.path" }
    })
    expect(r.code).toBe(78)
  })

  it("a jsonl sink path that is a directory says so, in the logfmt format when configured", async () => {
    const { dir, file } = startupConfig({ sinks: [{ type: "jsonl", path: "." }], adminPort: 0, format: "logfmt" })
    const r = await run(file)
    const line = fatalLine(r.stderr)
    expect(line).toMatch(/level=FATAL/)
    expect(line).toContain(`message="sinks.0.path: cannot open ${dir}: is a directory"`)
    expect(r.code).toBe(78)
  })

  it("an SQLite state file that cannot be created names state.sqlite, exit 78", async () => {
    const { file } = startupConfig({ state: { sqlite: "/sys/warden-test/state.db" }, adminPort: 0 })
    const r = await run(file)
    expect(JSON.parse(fatalLine(r.stderr)).message).toBe(
      "state.sqlite: cannot create /sys/warden-test: permission denied"
    )
    expect(r.code).toBe(78)
  })

  it("the admin port in use names admin.listen, exit 1 (another process, not the file, is at fault)", async () => {
    const port = await heldPort()
    const { file } = startupConfig({ adminPort: port })
    const r = await run(file)
    expect(JSON.parse(fatalLine(r.stderr)).message).toBe(
      `admin.listen: cannot listen on 127.0.0.1:${port}: address already in use`
    )
    expect(r.code).toBe(1)
  })

  it("a PostgreSQL database that does not exist names state.postgres in one line, exit 78", async () => {
    const { file } = startupConfig({ state: { postgres: databaseUrl("warden_no_such_database") }, adminPort: 0 })
    const r = await run(file)
    expect(r.stderr).not.toMatch(STACK_TRACE)
    expect(JSON.parse(fatalLine(r.stderr)).message).toBe(
      'state.postgres: database "warden_no_such_database" does not exist'
    )
    expect(r.code).toBe(78)
  })
})

describe("warden config check --connect", () => {
  it("tries what run needs and lists each check: key, database, files, admin port (exit 0)", async () => {
    const { dir, file } = startupConfig({
      state: { postgres: databaseUrl("test") },
      sinks: [{ type: "jsonl", path: "./out/verdicts.jsonl" }],
      adminPort: await freePort(),
      legacy: true
    })
    const before = sandbox.server.engine.log.list().length
    const r = await warden(["config", "check", "--connect", file], { env: { KEY: "sandbox-standard-key" } })
    expect(r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("warning: "))).toEqual([])
    expect(r.code).toBe(0)
    for (const check of [
      "connect: api.apiKey: API key accepted: ok",
      "connect: api.apiKey: legacy API key accepted: ok",
      "connect: state.postgres: database reachable: ok",
      `connect: sinks.0.path: ${join(dir, "out", "verdicts.jsonl")} writable: ok`,
      "free: ok"
    ])
      expect(r.stdout).toContain(check)
    // the key was tried with requests the API refuses before analysing: nothing was analysed
    const calls = sandbox.server.engine.log.list().slice(before)
    expect(calls.map((c) => c.status).sort()).toEqual([200, 400])
    expect(calls.find((c) => c.status === 200)?.body).toBe('{"channelUuid":"warden-config-check","contents":[]}')
  })

  it("reports every problem run would hit, one line per setting, exit 78 when the file is at fault", async () => {
    const port = await heldPort()
    const { file } = startupConfig({
      state: { postgres: databaseUrl("warden_no_such_database") },
      sinks: [{ type: "jsonl", path: "/sys/warden-test/verdicts.jsonl" }],
      adminPort: port
    })
    const r = await warden(["config", "check", "--connect", file], { env: { KEY: "not-a-key" } })
    const problems = r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("warning: "))
    expect(problems).toEqual([
      "api.apiKey: the API refused the key: AUTHENTICATION_ERROR: REASON_INVALID_CREDENTIALS",
      'state.postgres: database "warden_no_such_database" does not exist',
      "sinks.0.path: cannot create /sys/warden-test/verdicts.jsonl: permission denied",
      `admin.listen: cannot listen on 127.0.0.1:${port}: address already in use`,
      `${file}: 4 of 4 connection checks failed`
    ])
    expect(r.code).toBe(78)
  })

  it("only a busy port: exit 1, since the file is right", async () => {
    const port = await heldPort()
    const { file } = startupConfig({ adminPort: port })
    const r = await warden(["config", "check", "--connect", file], { env: { KEY: "sandbox-standard-key" } })
    expect(r.stderr).toContain(`admin.listen: cannot listen on 127.0.0.1:${port}: address already in use`)
    expect(r.code).toBe(1)
  })
})
