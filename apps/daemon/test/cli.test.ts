import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import pkg from "../package.json" with { type: "json" }

const run = promisify(execFile)
const bin = new URL("../src/bin.ts", import.meta.url).pathname

describe("warden CLI", () => {
  it("prints its version", async () => {
    const { stdout } = await run(process.execPath, ["--conditions=@warden/source", bin, "--version"])
    expect(stdout).toContain(pkg.version)
  })

  it("exits non-zero on an unknown command", async () => {
    await expect(run(process.execPath, ["--conditions=@warden/source", bin, "no-such-command"])).rejects.toMatchObject({
      code: expect.any(Number)
    })
  })
})
