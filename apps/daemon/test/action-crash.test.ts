/**
 * kill -9 between the verdict and its action: after a restart the action runs exactly once. The daemon
 * is a real process with the test platform's connector as a `module:` plugin; the platform holds the
 * action call open, so the kill lands after the verdict is persisted and before the platform acted.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDaemon, waitFor, writeConfig } from "./support/DaemonProcess.ts"
import * as StateDb from "./support/StateDb.ts"
import { pluginSourceConfig, startPlatform } from "./support/TestPlatform.ts"

describe("kill -9 between verdict and action", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let platform: Awaited<ReturnType<typeof startPlatform>>
  beforeAll(async () => {
    sandbox = await Sandbox.startPromise()
    platform = await startPlatform()
  })
  afterAll(async () => {
    await platform.close()
    await sandbox.close()
  })

  it("runs the action exactly once after the restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-action-crash-"))
    const state = join(dir, "state.db")
    const config = writeConfig(dir, {
      api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url },
      state: { sqlite: state },
      sources: [
        pluginSourceConfig(platform.url, {
          rules: [{ name: "threats", when: { classifications: { anyOf: ["THREAT"] } }, actions: ["hide"] }]
        })
      ],
      sinks: [{ type: "jsonl", path: join(dir, "out.jsonl") }],
      admin: { listen: "127.0.0.1:0" },
      log: { format: "json" }
    })
    platform.closeGate()
    platform.publish({ kind: "upsert", reference: "k/1", text: "[[THREAT]] you will regret this" })
    const first = startDaemon(config)
    await waitFor(() => platform.heldCount() === 1, 30_000, `the action call\n${first.stderr()}`)
    expect(StateDb.query(state, "SELECT status FROM warden_items WHERE reference = 'k/1'")).toEqual([
      { status: "analysed" }
    ])
    expect(StateDb.query(state, "SELECT kind, status FROM warden_actions")).toEqual([
      { kind: "hide", status: "pending" }
    ])
    first.child.kill("SIGKILL")
    await first.exited
    // The platform must have seen the killed daemon's connection close before the gate opens.
    await waitFor(() => platform.heldCount() === 0, 10_000, "the held call's connection to close")
    platform.openGate()
    expect(platform.executed).toEqual([])

    const second = startDaemon(config)
    await waitFor(
      () => StateDb.query<{ status: string }>(state, "SELECT status FROM warden_actions")[0]?.status === "done",
      30_000,
      `the action after restart\n${second.stderr()}`
    )
    await new Promise((r) => setTimeout(r, 1000))
    expect((await second.stop("SIGTERM")).code).toBe(0)
    expect(platform.executed.filter((a) => a.reference === "k/1" && a.kind === "hide").length).toBe(1)
    expect(StateDb.query(state, "SELECT COUNT(*) AS n FROM warden_items")).toEqual([{ n: 1 }])
  }, 90_000)
})
