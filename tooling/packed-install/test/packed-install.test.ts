/**
 * The product as users install it: every published package packed with `pnpm pack` (so `workspace:`
 * ranges are rewritten), installed with npm into empty folders outside the workspace, and run.
 *
 * - an operator: `@warden/daemon` + `@warden/connector-rss` -> `warden config check`, `warden source
 *   preview` on a feed served on loopback; the daemon's declarations type-check a program embedding it; `type: discord` refused naming its package, then loaded once
 *   the Discord tarball is installed; the same for `type: nats` (and its `/testing` helpers load) and `type: http`;
 *   a sink of `type: nats` the same way, which then delivers a short run's verdicts to a nats-server once each;
 * - a plugin author: a connector built against the packed `@warden/connector` in its own folder, with
 *   its own `effect` at another 4.x release, loaded by `module:` (config check and preview); the SDK's
 *   shipped change-log example built there too and run by `warden run` against `warden sandbox`,
 *   killed -9 mid-run and restarted: one verdict record per change, none lost, every hide done;
 * - an application developer: `@warden/v1` next to `effect` at another 4.x release, one copy of Effect,
 *   no redis/ws, node_modules without effect <= 15 MB; the README's Promise and Effect examples
 *   type-checked strictly, the Promise one run against `warden sandbox`; esbuild bundles run (CommonJS
 *   and ESM without a banner, undici beside them; one file with undici inside, with no node_modules);
 *   a browser bundle throws server-only; Node.js 20 is refused.
 *
 * Needs the packages built (`pnpm build`; turbo runs this after `^build`) and the npm registry for the
 * third-party dependencies (a warm npm cache makes it quick).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { basename, delimiter, dirname, join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { NatsServer } from "@warden/connector-nats/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/** The other 4.x release of Effect the user's folders have (the workspace builds against 4.1.0). */
const OTHER_EFFECT = "4.0.6"

const root = join(import.meta.dirname, "..", "..", "..")
const fixtures = join(import.meta.dirname, "..", "fixtures")
const work = mkdtempSync(join(tmpdir(), "warden-packed-"))
const tarballs = join(work, "tgz")

// Children run on this Node (24 under pnpm), also through `#!/usr/bin/env node` bins.
const env: Record<string, string | undefined> = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`
}
for (const key of Object.keys(env)) if (key.startsWith("npm_") || key.startsWith("PNPM_")) delete env[key]

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, extraEnv: Record<string, string> = {}) =>
  new Promise<Run>((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: { ...env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  })

const ok = async (command: string, args: ReadonlyArray<string>, cwd: string, extraEnv?: Record<string, string>) => {
  const r = await run(command, args, cwd, extraEnv)
  if (r.code !== 0)
    throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${r.code}\n${r.stdout}\n${r.stderr}`)
  return r
}

/** The published packages: every package of packages/ and apps/ that is not private. */
const published = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
    .filter(({ pkg }) => pkg.private !== true)
)

/** The tarball of a package, as `pnpm pack` names it. */
const tgz = (name: string): string => {
  const entry = published.find(({ pkg }) => pkg.name === name)
  if (entry === undefined) throw new Error(`${name} is not a published package`)
  return join(tarballs, `${name.replace(/^@/u, "").replace("/", "-")}-${entry.pkg.version}.tgz`)
}

const npmInstall = (cwd: string, specs: ReadonlyArray<string>) =>
  ok("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...specs], cwd)

/** An empty npm project folder. */
const project = (name: string, dependencies: Record<string, string> = {}) => {
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name, private: true, type: "module", dependencies }, null, 2)
  )
  return dir
}

/** A project folder holding `fixtures/NAME`, its `dependencies` in package.json and `specs` installed. */
const fixtureProject = async (name: string, dependencies: Record<string, string>, specs: ReadonlyArray<string>) => {
  const dir = project(name, dependencies)
  cpSync(join(fixtures, name), dir, { recursive: true })
  await npmInstall(dir, specs)
  return dir
}

/** The directories that hold a package named `name` under `dir`'s node_modules (nested included). */
const copiesOf = (dir: string, name: string): Array<string> => {
  const found: Array<string> = []
  const walk = (modules: string) => {
    if (!existsSync(modules)) return
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith(".")) continue
      const scoped = entry.startsWith("@")
      for (const sub of scoped ? readdirSync(join(modules, entry)).map((s) => `${entry}/${s}`) : [entry]) {
        const pkgDir = join(modules, sub)
        if (sub === name) found.push(pkgDir)
        walk(join(pkgDir, "node_modules"))
      }
    }
  }
  walk(join(dir, "node_modules"))
  return found
}

const version = (pkgDir: string): string => JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version

/**
 * A warden.yaml with one source and a stdout sink: `id`, `kind` (`type: rss`, `module: FILE`), the
 * test channel, then `config` (YAML lines indented by six).
 */
const writeConfig = (dir: string, file: string, id: string, kind: string, config: string) =>
  writeFileSync(
    join(dir, file),
    `api:\n  apiKey: \${env:WARDEN_API_KEY}\n  baseUrl: http://127.0.0.1:9\nsources:\n  - id: ${id}\n    ${kind}\n    channelId: 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c\n    config:\n${config}sinks:\n  - type: stdout\n`
  )

/** `warden sandbox --port 0` of the installed daemon in `dir`: its base URL once it listens. */
const startSandbox = (dir: string) => {
  const child = spawn(join(dir, "node_modules", ".bin", "warden"), ["sandbox", "--port", "0"], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const url = new Promise<string>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/u.exec(out)
      if (m !== null) resolve(m[1]!)
    })
    child.on("exit", (code) => reject(new Error(`warden sandbox exited ${code}: ${out}`)))
  })
  return { child, url }
}

/** Polls `check` every 100 ms until it holds, failing after `ms` with `what`. */
const waitFor = async (check: () => boolean, ms: number, what: () => string) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Rows of a query on a daemon's SQLite state file ([] before the file or table exists). */
const stateRows = <A>(file: string, sql: string): Array<A> => {
  if (!existsSync(file)) return []
  // not read-only: after a kill -9 the WAL may need recovering; the timeout waits out the daemon's writes
  const db = new DatabaseSync(file, { timeout: 10_000 })
  try {
    return db.prepare(sql).all() as Array<A>
  } catch (e) {
    if (String(e).includes("no such table")) return []
    throw e
  } finally {
    db.close()
  }
}

// The typescript of the workspace (the user's own tsc would do the same).
const tsc = join(root, "node_modules", ".bin", "tsc")

let feed: Server
let feedUrl = ""

beforeAll(async () => {
  const unbuilt = published.filter(({ dir }) => !existsSync(join(dir, "dist")))
  if (unbuilt.length > 0) {
    throw new Error(`build first (pnpm build): no dist/ in ${unbuilt.map(({ pkg }) => pkg.name).join(", ")}`)
  }
  mkdirSync(tarballs)
  for (const { dir } of published) await ok("pnpm", ["pack", "--pack-destination", tarballs], dir)
  feed = createServer((_, res) => {
    res.writeHead(200, { "content-type": "application/rss+xml" })
    res.end(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://x.example/</link>
${[1, 2, 3].map((i) => `<item><guid>item-${i}</guid><title>Comment ${i}</title><description>packed comment ${i}</description></item>`).join("")}
</channel></rss>`)
  })
  await new Promise<void>((resolve) => feed.listen(0, "127.0.0.1", resolve))
  feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/feed.xml`
})

afterAll(async () => {
  await new Promise<void>((resolve) => (feed === undefined ? resolve() : feed.close(() => resolve())))
  rmSync(work, { recursive: true, force: true })
})

describe("tarballs", () => {
  it("have no workspace: ranges, and every relative README link points into the tarball", async () => {
    for (const { pkg } of published) {
      const file = tgz(pkg.name)
      const manifest = (await ok("tar", ["-xzOf", file, "package/package.json"], work)).stdout
      expect(manifest, pkg.name).not.toContain("workspace:")
      const listing = (await ok("tar", ["-tzf", file], work)).stdout.split("\n")
      const readme = (await run("tar", ["-xzOf", file, "package/README.md"], work)).stdout
      for (const [, target] of readme.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/gu)) {
        expect(listing, `${pkg.name} README links to ${target}`).toContain(`package/${target!.replace(/^\.\//u, "")}`)
      }
    }
  })
})

describe("an operator installs the daemon with npm", () => {
  let daemon = ""
  const warden = (args: ReadonlyArray<string>, extraEnv?: Record<string, string>) =>
    run(join(daemon, "node_modules", ".bin", "warden"), args, daemon, {
      WARDEN_API_KEY: "sandbox-standard-key",
      ...extraEnv
    })
  /** `warden config check FILE`, which must pass: nothing on stderr, exit 0. */
  const checkPasses = async (file: string, extraEnv?: Record<string, string>) => {
    const r = await warden(["config", "check", file], extraEnv)
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    return r
  }
  /** `warden run --config FILE` of the installed daemon, in the background: its exit and its last stderr. */
  const startRun = (file: string) => {
    const child = spawn(join(daemon, "node_modules", ".bin", "warden"), ["run", "--config", file], {
      cwd: daemon,
      env: { ...env, WARDEN_API_KEY: "sandbox-standard-key" },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    return { child, exited, stderr: () => stderr.slice(-3000) }
  }
  /** `warden source preview ARGS --limit 3 --timeout TIMEOUT`, which must exit 0: the events it printed. */
  const preview = async (args: ReadonlyArray<string>, timeout: string): Promise<Array<any>> => {
    const r = await warden(["source", "preview", ...args, "--limit", "3", "--timeout", timeout])
    expect(r.code, r.stderr).toBe(0)
    return r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
  }

  beforeAll(async () => {
    daemon = project("daemon")
    // Until they are on the registry, the @warden dependencies come from their tarballs too.
    await npmInstall(
      daemon,
      [
        "@warden/daemon",
        "@warden/connector-rss",
        "@warden/connector",
        "@warden/core",
        "@warden/transport",
        "@warden/v1",
        "@warden/legacy",
        "@warden/sandbox",
        "@warden/sink"
      ].map(tgz)
    )
  })

  it("gets one copy of effect", () => {
    const daemonEffect = JSON.parse(readFileSync(join(root, "apps", "daemon", "package.json"), "utf8")).dependencies
      .effect
    expect(copiesOf(daemon, "effect").map(version)).toEqual([daemonEffect])
  })

  it("checks a config with an RSS source and previews the feed", async () => {
    writeConfig(daemon, "warden.yaml", "blog", "type: rss", `      feeds: [${feedUrl}]\n`)
    expect((await checkPasses("warden.yaml")).stdout).toContain("OK")

    const events = await preview(["--url", feedUrl], "10 seconds")
    expect(events.map((e) => e.content?.text)).toEqual(
      expect.arrayContaining(
        ["packed comment 1", "packed comment 2", "packed comment 3"].map((t) => expect.stringContaining(t))
      )
    )
    for (const event of events) expect(event.reference).toMatch(/^rss:/u)
  })

  it("ships type declarations: a program embedding the daemon (checkConfig, specOf, Daemon.layer) type-checks strictly (no skipLibCheck)", async () => {
    cpSync(join(fixtures, "daemon-app"), join(daemon, "app"), { recursive: true })
    await npmInstall(daemon, ["@types/node@24"])
    const r = await run(tsc, ["-p", join("app", "tsconfig.json")], daemon)
    expect(r.stdout + r.stderr).toBe("")
    expect(r.code).toBe(0)
  })

  /**
   * A config with source `id` of `type`, refused naming the npm package while it is not installed, then
   * accepted once its tarball is installed next to the daemon, still with one copy of effect.
   */
  const refusedThenLoaded = async (type: string, id: string, config: string, env: Record<string, string>) => {
    const pkg = `@warden/connector-${type}`
    writeConfig(daemon, `${type}.yaml`, id, `type: ${type}`, config)
    const missing = await warden(["config", "check", `${type}.yaml`], env)
    expect(missing.code).toBe(78)
    expect(missing.stderr).toContain(
      `sources.0.type: connector type '${type}' is the npm package ${pkg}, which is not installed: run \`npm install ${pkg}\``
    )
    await npmInstall(daemon, [tgz(pkg)])
    const loaded = await checkPasses(`${type}.yaml`, env)
    expect(loaded.stdout).toContain(`${id} (${type})`)
    expect(copiesOf(daemon, "effect")).toHaveLength(1)
  }

  it("refuses type: discord naming the npm package, and loads it once the Discord tarball is installed", () =>
    refusedThenLoaded(
      "discord",
      "server",
      `      token: \${env:DISCORD_BOT_TOKEN}
      guilds: [{ id: "123456789012345678" }]
`,
      { DISCORD_BOT_TOKEN: "placeholder-token" }
    ))

  it("installs the NATS connector from its tarball next to the daemon: config check accepts a nats source", async () => {
    await refusedThenLoaded(
      "nats",
      "bus",
      `      servers: [nats://127.0.0.1:4222]
      stream: COMMENTS
      subject: comments.new
      token: \${env:NATS_TOKEN}
`,
      { NATS_TOKEN: "placeholder-token" }
    )
    // its test helpers ship built too
    await ok(process.execPath, ["--input-type=module", "-e", 'await import("@warden/connector-nats/testing")'], daemon)
  })

  it("installs the NATS sink from its tarball next to the daemon: config check names it, then a short run delivers every verdict to nats-server once", async () => {
    const server = await NatsServer.start()
    const sandbox = startSandbox(daemon)
    try {
      await NatsServer.createStream(server.url, { name: "VERDICTS", subjects: ["warden.verdicts.>"] })
      const state = join(daemon, "nats-sink-state.db")
      writeFileSync(
        join(daemon, "nats-sink.yaml"),
        `api:\n  apiKey: \${env:WARDEN_API_KEY}\n  baseUrl: ${await sandbox.url}\nstate:\n  sqlite: ${state}
sources:
  - id: blog
    type: rss
    channelId: 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c
    config:
      feeds: [${feedUrl}]
sinks:
  - name: bus
    type: nats
    servers: [${server.url}]
    subject: warden.verdicts.{source}
    stream: VERDICTS
admin:
  listen: 127.0.0.1:0
`
      )
      const missing = await warden(["config", "check", "nats-sink.yaml"])
      expect(missing.code).toBe(78)
      expect(missing.stderr).toContain(
        "sinks.0.type: sink type 'nats' is the npm package @warden/sink-nats, which is not installed: run `npm install @warden/sink-nats`"
      )
      // The sink's own dependency on the NATS connector's connection comes from its tarball too.
      await npmInstall(daemon, ["@warden/sink-nats", "@warden/connector-nats"].map(tgz))
      expect((await checkPasses("nats-sink.yaml")).stdout).toContain("bus (nats)")
      expect(copiesOf(daemon, "effect")).toHaveLength(1)

      const { child, exited, stderr } = startRun("nats-sink.yaml")
      let stored: ReadonlyArray<NatsServer.StoredMessage> = []
      const deadline = Date.now() + 60_000
      while (stored.length < 3 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200))
        stored = await NatsServer.messages(server.url, "VERDICTS")
      }
      child.kill("SIGTERM")
      expect(await exited, stderr()).toBe(0)
      stored = await NatsServer.messages(server.url, "VERDICTS")
      expect(stored.map((m) => m.subject)).toEqual(Array(3).fill("warden.verdicts.blog"))
      expect(new Set(stored.map((m) => m.msgId)).size).toBe(3)
      for (const m of stored) expect(JSON.parse(m.data)).toMatchObject({ source: "blog", status: "analysed" })
    } finally {
      sandbox.child.kill("SIGTERM")
      await server.close()
    }
  }, 180_000)

  it("installs the http connector from its tarball next to the daemon: config check accepts an http source", () =>
    refusedThenLoaded(
      "http",
      "site",
      `      listen: 127.0.0.1:8788
      clients:
        - name: backend
          signingSecret: \${env:PUSH_SIGNING_SECRET}
`,
      { PUSH_SIGNING_SECRET: `whsec_${Buffer.from("a placeholder signing key").toString("base64")}` }
    ))

  describe(`a plugin built in its own folder with effect ${OTHER_EFFECT}`, () => {
    let plugin = ""

    beforeAll(async () => {
      plugin = await fixtureProject(
        "plugin",
        // Until it is on the registry, the SDK's own @warden dependency comes from its tarball too.
        {
          "@warden/connector": `file:${tgz("@warden/connector")}`,
          "@warden/core": `file:${tgz("@warden/core")}`,
          effect: OTHER_EFFECT
        },
        ["@types/node@24"]
      )
      // The SDK's shipped example (a change log with creates, edits, deletes and a hide action), as an
      // author starts from it: copied out of the installed tarball, built with the plugin.
      cpSync(
        join(plugin, "node_modules", "@warden", "connector", "examples", "ChangeLogConnector.ts"),
        join(plugin, "src", "changelog.ts")
      )
      await ok(tsc, ["-p", "tsconfig.json"], plugin)
    })

    it("has its own copy of effect", () => {
      expect(copiesOf(plugin, "effect").map(version)).toEqual([OTHER_EFFECT])
    })

    it("passes config check and previews through the daemon's effect (durations, secrets, optional keys decode)", async () => {
      const module = join(plugin, "dist", "index.js")
      writeConfig(
        daemon,
        "plugin.yaml",
        "hello",
        `module: ${module}`,
        `      greeting: hi
      every: 1 second
      token: \${env:PLUGIN_TOKEN}
      count: 2
`
      )
      await checkPasses("plugin.yaml", { PLUGIN_TOKEN: "s3cret" })

      writeFileSync(join(daemon, "hello.yaml"), "greeting: hi\nevery: 1 second\ntoken: s3cret\n")
      const events = await preview(["--module", module, "--config", "hello.yaml"], "5 seconds")
      expect(events.map((e) => e.content?.text)).toEqual(
        [1, 2, 3].map((i) => `hi #${i} every 1000 ms (token of 6 chars)`)
      )
    })
    it("runs under warden run against the sandbox; killed -9 mid-run and restarted: every change analysed once, no loss, hides done", async () => {
      const N = 400
      const PAGE = 20
      // The platform: a change log served PAGE changes a request (the plugin polls every 100 ms, so the
      // run spans seconds), every 10th comment an insult; hides recorded, a repeat answered 409.
      const hidden = new Map<string, number>()
      const platform = createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://x")
        const hide = /^\/hide\/(\d+)$/u.exec(url.pathname)
        if (req.method === "POST" && hide !== null) {
          const id = hide[1]!
          hidden.set(id, (hidden.get(id) ?? 0) + 1)
          res.writeHead(hidden.get(id) === 1 ? 200 : 409).end()
          return
        }
        const after = Number(url.searchParams.get("after") ?? 0)
        const changes = Array.from({ length: Math.max(0, Math.min(PAGE, N - after)) }, (_, i) => {
          const seq = after + i + 1
          return {
            seq,
            op: "create",
            id: seq,
            text: seq % 10 === 0 ? `you idiot number ${seq}` : `a fine comment number ${seq}`
          }
        })
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(changes))
      })
      await new Promise<void>((resolve) => platform.listen(0, "127.0.0.1", resolve))
      const sandbox = startSandbox(daemon)
      try {
        const state = join(daemon, "changelog-state.db")
        const out = join(daemon, "changelog-verdicts.jsonl")
        writeFileSync(
          join(daemon, "changelog.yaml"),
          `api:\n  apiKey: \${env:WARDEN_API_KEY}\n  baseUrl: ${await sandbox.url}\nstate:\n  sqlite: ${state}
sources:
  - id: comments
    module: ${join(plugin, "dist", "changelog.js")}
    channelId: 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c
    config:
      url: http://127.0.0.1:${(platform.address() as AddressInfo).port}
      pollInterval: 100 millis
    rules:
      - name: hide-insults
        when: { type: [HATEFUL] }
        actions: [hide]
sinks:
  - type: jsonl
    path: ${out}
admin:
  listen: 127.0.0.1:0
log:
  format: json
`
        )
        // A poll under a second passes with a warning (fit for a local platform, as here).
        const checked = await warden(["config", "check", "changelog.yaml"])
        expect(checked.code).toBe(0)
        expect(checked.stderr.trim()).toMatch(
          /^warning: \S+ sources\.0\.config\.pollInterval: polls every 100ms[^\n]*$/u
        )
        const items = () =>
          stateRows<{ reference: string; version: number }>(state, "SELECT reference, version FROM warden_items")
        const start = () => startRun("changelog.yaml")

        const first = start()
        await waitFor(
          () => items().length > 0,
          60_000,
          () => `the first verdicts\n${first.stderr()}`
        )
        first.child.kill("SIGKILL")
        await first.exited
        const atKill = items().length
        expect(atKill, "killed mid-run").toBeLessThan(N)
        console.log(`killed -9 with ${atKill} of ${N} verdicts recorded`)

        const second = start()
        await waitFor(
          () => items().length >= N && hidden.size >= N / 10,
          120_000,
          () => `${N} verdicts and ${N / 10} hides (have ${items().length}, ${hidden.size})\n${second.stderr()}`
        )
        second.child.kill("SIGTERM")
        expect(await second.exited).toBe(0)

        // One verdict record per change, none lost, none twice; the sink saw every one.
        const rows = items()
        expect(rows).toHaveLength(N)
        expect(new Set(rows.map((r) => r.reference)).size).toBe(N)
        expect(rows.every((r) => Number(r.version) === 1)).toBe(true)
        const sunk = readFileSync(out, "utf8")
          .split("\n")
          .filter((line) => line.endsWith("}"))
          .map((line) => JSON.parse(line).reference as string)
        expect(new Set(sunk).size).toBe(N)
        // Each insult hidden on the platform; a repeat after the kill is answered 409 (alreadyDone).
        expect([...hidden.keys()].sort()).toEqual(Array.from({ length: N / 10 }, (_, i) => String((i + 1) * 10)).sort())
      } finally {
        sandbox.child.kill("SIGTERM")
        await new Promise<void>((resolve) => platform.close(() => resolve()))
      }
    })
  })

  describe(`an application uses @warden/v1 with effect ${OTHER_EFFECT}`, () => {
    let app = ""
    let sandbox: ChildProcess | undefined
    let baseUrl = ""
    /** Runs a script of the app (from `cwd`) against the sandbox, which must exit 0: the JSON line it printed. */
    const runAgainstSandbox = async (script: string, cwd = app) =>
      JSON.parse(
        (
          await ok(process.execPath, [script], cwd, {
            WARDEN_API_KEY: "sandbox-standard-key",
            WARDEN_BASE_URL: baseUrl
          })
        ).stdout.trim()
      )

    beforeAll(async () => {
      app = await fixtureProject("v1-app", { effect: OTHER_EFFECT }, [
        "@types/node@24",
        ...["@warden/v1", "@warden/core", "@warden/transport"].map(tgz)
      ])
      const started = startSandbox(daemon)
      sandbox = started.child
      baseUrl = await started.url
    })

    afterAll(() => {
      sandbox?.kill("SIGTERM")
    })

    it("installs one copy of effect, the application's, and no redis or ws; node_modules without effect <= 15 MB", () => {
      expect(copiesOf(app, "effect").map(version)).toEqual([OTHER_EFFECT])
      for (const name of ["ws", "redis", "@redis/client"]) expect(copiesOf(app, name), name).toEqual([])
      const sizeOf = (dir: string): number =>
        readdirSync(dir, { withFileTypes: true }).reduce(
          (total, e) =>
            total + (e.isDirectory() ? sizeOf(join(dir, e.name)) : e.isFile() ? statSync(join(dir, e.name)).size : 0),
          0
        )
      const modules = join(app, "node_modules")
      // @types/node is the test's own (for tsc), not the client's
      const bytes = sizeOf(modules) - sizeOf(join(modules, "effect")) - sizeOf(join(modules, "@types"))
      expect(bytes / 1e6).toBeLessThanOrEqual(15)
    })

    it("type-checks the README's Promise and Effect examples strictly (exactOptionalPropertyTypes, no skipLibCheck)", async () => {
      const r = await run(tsc, ["-p", "tsconfig.json"], app)
      expect(r.stdout + r.stderr).toBe("")
      expect(r.code).toBe(0)
    })

    it("runs the README's Promise example against warden sandbox: typed answer, feedback id, a 401 as a one-line WardenError", async () => {
      const answer = await runAgainstSandbox("main.ts")
      expect(answer.type).toBe("HATEFUL")
      expect(typeof answer.feedbackId).toBe("string")
      expect(answer.error.status).toBe(401)
      expect(answer.error.code).toBe("AUTHENTICATION_ERROR")
      expect(answer.error.message).toMatch(
        /^401 AUTHENTICATION_ERROR: REASON_EXPIRED_CREDENTIALS \(request [0-9a-f-]{36}\)$/u
      )
    })

    describe("bundled with esbuild", () => {
      /** Bundles the app's `entry` (bundle.js) with esbuild into `outfile`. */
      const bundle = (
        platform: "node" | "browser",
        format: "cjs" | "esm",
        outfile: string,
        entry = "bundle.js",
        extra: ReadonlyArray<string> = []
      ) =>
        ok(
          join(app, "node_modules", ".bin", "esbuild"),
          [entry, "--bundle", `--platform=${platform}`, `--format=${format}`, `--outfile=${outfile}`, ...extra],
          app
        )
      /** A folder with only `file` in it: no node_modules to load anything from. */
      const alone = (file: string) => {
        const copy = join(mkdtempSync(join(work, "alone-")), basename(file))
        cpSync(join(app, file), copy)
        return copy
      }
      beforeAll(async () => {
        // undici: bundle-full.js imports it itself, as an app that bundles it whole does
        await npmInstall(app, ["esbuild@0.28", "undici@^8.12.4"])
      })

      it("as CommonJS, runs against the sandbox, also started from another directory", async () => {
        await bundle("node", "cjs", "out/app.cjs")
        expect(await runAgainstSandbox("out/app.cjs")).toEqual({ type: "HATEFUL" })
        // undici is found beside the bundle, not from the working directory
        expect(await runAgainstSandbox(join(app, "out", "app.cjs"), work)).toEqual({ type: "HATEFUL" })
      })

      it("as one file with undici inside (the app's own Agent as dispatcher): CommonJS, and ESM with a createRequire banner, run with no node_modules", async () => {
        await bundle("node", "cjs", "out/full.cjs", "bundle-full.js")
        expect(await runAgainstSandbox(alone("out/full.cjs"), work)).toEqual({ type: "HATEFUL" })
        const banner =
          "import { createRequire as topLevelCreateRequire } from 'node:module'; const require = topLevelCreateRequire(import.meta.url);"
        await bundle("node", "esm", "out/full.mjs", "bundle-full.js", [`--banner:js=${banner}`])
        expect(await runAgainstSandbox(alone("out/full.mjs"), work)).toEqual({ type: "HATEFUL" })
      })

      it("as ESM without a banner, runs against the sandbox (undici is left out of the bundle and required from node_modules)", async () => {
        await bundle("node", "esm", "out/app.mjs")
        expect(await runAgainstSandbox("out/app.mjs")).toEqual({ type: "HATEFUL" })
      })

      it("for a browser, the bundle throws server-only at load", async () => {
        await bundle("browser", "esm", "out/browser.mjs")
        const r = await run(process.execPath, ["out/browser.mjs"], app)
        expect(r.code).not.toBe(0)
        expect(r.stderr).toContain("server-only: API keys must not be used client-side")
      })
    })

    it("on Node.js 20, the import fails at once saying which Node.js it needs", async () => {
      // the machine's own Node.js 20 where it has one (CI's system Node); elsewhere this Node.js, made
      // to report 20.20.2 before anything loads, so the test never depends on what /usr/bin/node is
      const system = await run("/usr/bin/node", ["--version"], app)
      const old = system.code === 0 && /^v20\./u.test(system.stdout.trim())
      const fake = 'Object.defineProperty(process.versions, "node", { value: "20.20.2" })'
      const r = old
        ? await run("/usr/bin/node", ["--input-type=module", "-e", 'await import("@warden/v1")'], app)
        : await run(
            process.execPath,
            [
              "--import",
              `data:text/javascript,${encodeURIComponent(fake)}`,
              "--input-type=module",
              "-e",
              'await import("@warden/v1")'
            ],
            app
          )
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(/Warden needs Node\.js >= 22\.19\.0; this is Node\.js 20\./u)
    })
  })
})
