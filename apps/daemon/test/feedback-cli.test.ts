/** `warden feedback --reference R`: feedback on a recorded item through the running daemon's admin API. */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { ADMIN_TOKEN, startDaemonInProcess } from "./support/InProcess.ts"
import { platformSource, startPlatform } from "./support/TestPlatform.ts"
import { warden } from "./support/WardenCli.ts"

describe("warden feedback --reference", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let platform: Awaited<ReturnType<typeof startPlatform>>
  let daemon: Awaited<ReturnType<typeof startDaemonInProcess>>
  beforeAll(async () => {
    sandbox = await Sandbox.startPromise()
    platform = await startPlatform()
    daemon = await startDaemonInProcess({
      state: { _tag: "sqlite", filename: join(mkdtempSync(join(tmpdir(), "warden-fbcli-")), "state.db") },
      api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
      sources: [platformSource(platform.url, { id: "p" })],
      sinks: Layer.succeed(SinkList, []),
      sinkNames: [],
      includeContent: false
    })
    platform.publish({ kind: "upsert", reference: "c/1", text: "You are an idiot" })
    await waitFor(async () => (await daemon.admin("/api/decisions/c%2F1")).status === 200, 20_000, "the verdict")
  })
  afterAll(async () => {
    await daemon.close()
    await platform.close()
    await sandbox.close()
  })

  it("sends the feedback and prints the API's id", async () => {
    const { code, stdout, stderr } = await warden(
      [
        "feedback",
        "--reference",
        "c/1",
        "--remove",
        "INSULT",
        "--notes",
        "friends joking",
        "--confidence",
        "HIGH",
        "--admin-url",
        daemon.adminUrl
      ],
      { env: { WARDEN_ADMIN_TOKEN: ADMIN_TOKEN } }
    )
    expect(stderr).toBe("")
    expect(code).toBe(0)
    const answer = JSON.parse(stdout)
    expect(answer).toMatchObject({ reference: "c/1", version: 1, endpoint: "/feedback/v1/text" })
    const received = await Effect.runPromise(sandbox.feedback)
    expect(JSON.parse((received.at(-1) as { rawBody: string }).rawBody)).toMatchObject({
      classificationsToRemove: ["INSULT"],
      notes: "friends joking",
      confidence: "HIGH"
    })
  })

  it("says why it was refused and exits non-zero", async () => {
    const unknown = await warden(["feedback", "--reference", "c/404", "--notes", "x", "--admin-url", daemon.adminUrl], {
      env: { WARDEN_ADMIN_TOKEN: ADMIN_TOKEN }
    })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("never analysed")
    const noInput = await warden(["feedback", "--reference", "c/1", "--admin-url", daemon.adminUrl], {
      env: { WARDEN_ADMIN_TOKEN: ADMIN_TOKEN }
    })
    expect(noInput.code).toBe(2)
    expect(noInput.stderr).toContain("classificationsToAdd")
    const noToken = await warden(["feedback", "--reference", "c/1", "--notes", "x", "--admin-url", daemon.adminUrl])
    expect(noToken.code).toBe(2)
    expect(noToken.stderr).toContain("admin token")
  })
})
