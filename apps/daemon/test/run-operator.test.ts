/**
 * `warden run` as an operator deploys it: the data directory apart from the config (`state.dir`), the
 * generated admin token in a 0600 file and never in the log stream, `WARDEN_LOG_LEVEL` and
 * `--log-level` over the file's `log.level`, `WARDEN_CONFIG` naming the file.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, idleFeedSource, startDaemon, waitFor } from "./support/DaemonProcess.ts"
import { warden } from "./support/WardenCli.ts"

let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
beforeAll(async () => {
  sandbox = await Sandbox.startPromise({})
})
afterAll(() => sandbox.close())

const config = (extra: Record<string, unknown> = {}) => {
  const dir = mkdtempSync(join(tmpdir(), "warden-run-op-"))
  const file = join(dir, "warden.yaml")
  writeFileSync(
    file,
    JSON.stringify({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a secret reference of the config file
      api: { apiKey: "${env:KEY}", baseUrl: sandbox.url },
      sources: [idleFeedSource],
      admin: { listen: "127.0.0.1:0" },
      log: { format: "json", level: "debug" },
      ...extra
    })
  )
  return { dir, file }
}

/** Waits for the token file, then for /healthz to answer with it; returns the token. */
const tokenOf = async (dataDir: string, adminUrl: () => string | undefined) => {
  const path = join(dataDir, "admin-token")
  await waitFor(() => existsSync(path) && adminUrl() !== undefined, 60_000, "the token file and the admin URL")
  return readFileSync(path, "utf8").trim()
}

/** Waits until the admin API at `base` answers /healthz (with `token`, if given). */
const healthy = (base: string, token?: string) =>
  waitFor(
    async () =>
      (
        await fetch(
          `${base}/healthz`,
          token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }
        ).catch(() => undefined)
      )?.status === 200,
    60_000,
    `the admin API at ${base}`
  )

describe("warden run as an operator deploys it", () => {
  it("keeps its state in state.dir and the generated admin token in a 0600 file there, never in the log stream", async () => {
    const data = mkdtempSync(join(tmpdir(), "warden-data-"))
    const { dir, file } = config({ state: { dir: data } })
    const daemon = startDaemon(file, { KEY: "sandbox-standard-key" })
    try {
      const adminUrl = () => /admin API (http:\/\/127\.0\.0\.1:\d+)/u.exec(daemon.stderr())?.[1]
      const token = await tokenOf(data, adminUrl)
      expect(token.length).toBeGreaterThan(16)
      expect(statSync(join(data, "admin-token")).mode & 0o777).toBe(0o600)
      expect(existsSync(join(data, "state.db"))).toBe(true)
      expect(existsSync(join(dir, ".warden"))).toBe(false)
      const res = await fetch(`${adminUrl()}/readyz`, { headers: { authorization: `Bearer ${token}` } })
      expect([200, 503]).toContain(res.status)
      const log = daemon.stderr()
      expect(log).toContain(join(data, "admin-token"))
      expect(log).not.toContain(token)
      for (const line of log.trim().split("\n")) expect(() => JSON.parse(line), line).not.toThrow()
    } finally {
      await daemon.stop()
    }
  })

  it("WARDEN_LOG_LEVEL wins over the file's log.level (warn: no info or debug lines)", async () => {
    const data = mkdtempSync(join(tmpdir(), "warden-data-"))
    const port = await freePort()
    const { file } = config({ state: { dir: data }, admin: { listen: `127.0.0.1:${port}` } })
    const daemon = startDaemon(file, { KEY: "sandbox-standard-key", WARDEN_LOG_LEVEL: "warn" })
    try {
      await healthy(`http://127.0.0.1:${port}`, await tokenOf(data, () => "ready"))
      expect(daemon.stderr()).not.toMatch(/"level":"(INFO|DEBUG)"/u)
    } finally {
      daemon.child.kill("SIGTERM")
      await daemon.exited
    }
    // The same file without the variable logs at debug: the assertion above could fail.
    expect(daemon.stderr()).not.toContain("warden running")
  })

  it("--log-level wins over the environment and the file", async () => {
    const data = mkdtempSync(join(tmpdir(), "warden-data-"))
    const port = await freePort()
    const { file } = config({ state: { dir: data }, admin: { listen: `127.0.0.1:${port}` } })
    const daemon = startDaemon(file, { KEY: "sandbox-standard-key", WARDEN_LOG_LEVEL: "debug" }, [
      "--log-level",
      "error"
    ])
    try {
      // running (its admin API answers), not only started: a daemon killed earlier would have logged nothing
      await healthy(`http://127.0.0.1:${port}`, await tokenOf(data, () => "ready"))
      expect(existsSync(join(data, "admin-token"))).toBe(true)
      expect(daemon.stderr()).not.toMatch(/"level":"(INFO|DEBUG|WARN)"/u)
    } finally {
      daemon.child.kill("SIGTERM")
      await daemon.exited
    }
  })

  it("admin.public serves /readyz and /metrics without the token (build info and process metrics), the rest still needs it", async () => {
    const data = mkdtempSync(join(tmpdir(), "warden-data-"))
    const open = await freePort()
    const { file } = config({
      state: { dir: data },
      admin: { listen: `127.0.0.1:${open}`, token: "probe-secret-token", public: ["readyz", "metrics"] }
    })
    const daemon = startDaemon(file, { KEY: "sandbox-standard-key" })
    try {
      const base = `http://127.0.0.1:${open}`
      await healthy(base)
      expect([200, 503]).toContain((await fetch(`${base}/readyz`)).status)
      const metrics = await fetch(`${base}/metrics`)
      expect(metrics.status).toBe(200)
      const text = await metrics.text()
      expect(text).toMatch(/warden_build_info\{[^}]*version="\d+\.\d+\.\d+[^"]*"[^}]*\} 1/u)
      expect(text).toMatch(/process_resident_memory_bytes(\{\})? [1-9]/u)
      expect(text).toMatch(/process_start_time_seconds(\{\})? 1\d{9}/u)
      expect((await fetch(`${base}/api/decisions`)).status).toBe(401)
    } finally {
      await daemon.stop()
    }
  })

  it("without admin.public, /readyz and /metrics need the token", async () => {
    const data = mkdtempSync(join(tmpdir(), "warden-data-"))
    const closed = await freePort()
    const { file } = config({
      state: { dir: data },
      admin: { listen: `127.0.0.1:${closed}`, token: "probe-secret-token" }
    })
    const daemon = startDaemon(file, { KEY: "sandbox-standard-key" })
    try {
      const base = `http://127.0.0.1:${closed}`
      await healthy(base)
      expect((await fetch(`${base}/readyz`)).status).toBe(401)
      expect((await fetch(`${base}/metrics`)).status).toBe(401)
      const authorized = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer probe-secret-token" } })
      expect(authorized.status).toBe(200)
    } finally {
      await daemon.stop()
    }
  })

  it("WARDEN_CONFIG names the file when --config is not given, and run --help shows the default", async () => {
    const missing = join(mkdtempSync(join(tmpdir(), "warden-cfg-")), "from-env.yaml")
    const r = await warden(["run"], { env: { WARDEN_CONFIG: missing } })
    expect(r.code).toBe(78)
    expect(r.stderr).toContain("from-env.yaml")
    const check = await warden(["config", "check"], { env: { WARDEN_CONFIG: missing } })
    expect(check.code).toBe(78)
    expect(check.stderr).toContain("from-env.yaml")
    const help = await warden(["run", "--help"])
    expect(help.stdout).toContain("WARDEN_CONFIG")
    expect(help.stdout).toContain("warden.yaml")
  })
})
