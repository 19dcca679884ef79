/** `warden feedback --reference R`: feedback on a recorded item through the running daemon's admin API. */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitFor } from "./support/DaemonProcess.ts"
import { ADMIN_TOKEN } from "./support/InProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"
import { platformSource } from "./support/TestPlatform.ts"
import { warden } from "./support/WardenCli.ts"

describe("warden feedback --reference", () => {
  let started: Awaited<ReturnType<typeof startSandboxDaemon>>
  let sandbox: typeof started.sandbox
  let daemon: typeof started.daemon
  beforeAll(async () => {
    started = await startSandboxDaemon({ sources: ([url]) => [platformSource(url!, { id: "p" })] })
    ;({ sandbox, daemon } = started)
    const platform = started.platforms[0]!
    platform.publish({ kind: "upsert", reference: "c/1", text: "You are an idiot" })
    await waitFor(async () => (await daemon.admin("/api/decisions/c%2F1")).status === 200, 20_000, "the verdict")
  })
  afterAll(() => started.close())

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
