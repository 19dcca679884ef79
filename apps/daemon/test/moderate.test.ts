/** Restore / Remove through the admin API where they must not act: a dry-run source. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitFor } from "./support/DaemonProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"
import { platformSource } from "./support/TestPlatform.ts"

let started: Awaited<ReturnType<typeof startSandboxDaemon>>

beforeAll(async () => {
  started = await startSandboxDaemon({
    sources: ([url]) => [
      platformSource(url!, {
        id: "dry",
        dryRun: true,
        rules: [{ name: "hide-threats", when: { classifications: { anyOf: ["THREAT"] } }, actions: [{ kind: "hide" }] }]
      })
    ]
  })
  started.platforms[0]!.publish({ kind: "upsert", reference: "d/1", text: "[[THREAT]] I know where you live" })
  await waitFor(
    async () => (await started.daemon.admin("/api/decisions")).body.decisions?.length === 1,
    20_000,
    "the decision"
  )
})
afterAll(() => started?.close())

describe("Restore / Remove on a dry-run source", () => {
  it("offers neither and refuses both, naming the dry run; nothing reaches the platform", async () => {
    const detail = await started.daemon.admin("/api/decisions/d%2F1")
    expect(detail.body.actions).toMatchObject([{ kind: "hide", status: "would-do" }])
    expect(detail.body.platformActions).toEqual([])
    for (const action of ["remove", "restore"]) {
      const res = await started.daemon.admin("/api/decisions/d%2F1/moderate", {
        method: "POST",
        body: JSON.stringify({ action })
      })
      expect(res.status).toBe(409)
      expect(res.body.error).toMatchObject({
        code: "CANNOT_ACT",
        message: "source dry is a dry run: it takes no action on its platform"
      })
    }
    expect(started.platforms[0]!.executed).toEqual([])
  })
})
