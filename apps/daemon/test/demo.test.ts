/**
 * `warden demo` as a newcomer sees it on a terminal (`--format pretty`): a column header above the
 * verdict lines, what the API recommends apart from what was done, and a closing line on Ctrl-C saying
 * what was delivered.
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { waitFor } from "./support/DaemonProcess.ts"

const bin = new URL("../src/bin.ts", import.meta.url).pathname

describe("warden demo on a terminal", () => {
  it("heads its verdict lines, and says what it printed when it stops", async () => {
    const demo = spawn(process.execPath, ["--conditions=@warden/source", bin, "demo", "--format", "pretty"], {
      env: { PATH: process.env.PATH ?? "", NODE_NO_WARNINGS: "1", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    demo.stdout.on("data", (d: Buffer) => {
      out += d.toString()
    })
    demo.stderr.on("data", (d: Buffer) => {
      err += d.toString()
    })
    const exited = new Promise<number | null>((resolve) => demo.once("exit", (code) => resolve(code)))
    try {
      await waitFor(() => out.split("\n").length > 6, 60_000, "a few verdict lines")
    } finally {
      demo.kill("SIGINT")
    }
    expect(await exited).toBe(0)
    const lines = out.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^RECOMMENDED\s+SEVERITY\s+TYPE\s+CLASSIFICATIONS\s+LANG\s+DONE\s+ITEM$/u)
    // Printed once, not above every batch.
    expect(lines.filter((line) => line.startsWith("RECOMMENDED"))).toHaveLength(1)
    // The demo has no rules: the API recommends REMOVE for some, and nothing was done to any.
    const verdicts = lines.slice(1)
    expect(verdicts.some((line) => line.startsWith("REMOVE"))).toBe(true)
    const done = lines[0]!.indexOf("DONE")
    for (const line of verdicts) expect(line.slice(done, done + 2)).toBe("- ")
    const stopped = /warden demo stopped: (\d+) verdicts printed/u.exec(err)
    expect(stopped, err).not.toBeNull()
    expect(Number(stopped![1])).toBe(verdicts.length)
  }, 90_000)
})
